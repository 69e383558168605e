package dev.postbox.internal.jdbc;

import java.sql.SQLException;

/** Work that may throw SQLException, run by a retry loop or a lock. */
@FunctionalInterface
public interface SqlSupplier<R> {
  R get() throws SQLException;
}
