package dev.postbox.internal.jdbc;

import java.sql.Connection;
import java.sql.SQLException;

/** Work done on a connection that may throw {@link SQLException}. */
@FunctionalInterface
public interface SqlFunction<T> {
  T apply(Connection connection) throws SQLException;
}
