package dev.postbox.internal.jdbc;

import java.sql.SQLException;

/** Work on one JDBC object (a connection, a statement, a dialect) that may throw SQLException. */
@FunctionalInterface
public interface SqlFunction<A, R> {
  R apply(A argument) throws SQLException;
}
