package dev.postbox.internal.jdbc;

import dev.postbox.PostboxException;
import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;

/**
 * Short transactions on connections borrowed from a {@link DataSource}; the one place SQLException
 * is wrapped.
 */
public final class Jdbc {
  private Jdbc() {}

  /**
   * Runs {@code work} in its own transaction on a connection from {@code dataSource}, commits, and
   * returns the connection's auto-commit and isolation to what they were. Rolls back on any
   * failure.
   */
  public static <T> T inTransaction(DataSource dataSource, int isolation, SqlFunction<T> work)
      throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      boolean autoCommit = c.getAutoCommit();
      int previousIsolation = c.getTransactionIsolation();
      boolean changeIsolation =
          isolation != Connection.TRANSACTION_NONE && isolation != previousIsolation;
      if (changeIsolation) {
        c.setTransactionIsolation(isolation);
      }
      if (autoCommit) {
        c.setAutoCommit(false);
      }
      try {
        T result = work.apply(c);
        c.commit();
        return result;
      } catch (SQLException | RuntimeException | Error e) {
        rollbackQuietly(c, e);
        throw e;
      } finally {
        if (autoCommit) {
          c.setAutoCommit(true);
        }
        if (changeIsolation) {
          c.setTransactionIsolation(previousIsolation);
        }
      }
    }
  }

  /** Runs {@code work} on a connection from {@code dataSource} in auto-commit mode. */
  public static <T> T autoCommit(DataSource dataSource, SqlFunction<T> work) throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      if (!c.getAutoCommit()) {
        c.setAutoCommit(true);
      }
      return work.apply(c);
    }
  }

  /** Wraps {@code e} in a {@link PostboxException} whose message starts with {@code what}. */
  public static PostboxException wrap(String what, SQLException e) {
    return new PostboxException(
        what + " failed: " + e.getMessage() + " (SQLState " + e.getSQLState() + ")", e);
  }

  private static void rollbackQuietly(Connection c, Throwable cause) {
    try {
      c.rollback();
    } catch (SQLException rollbackFailure) {
      cause.addSuppressed(rollbackFailure);
    }
  }
}
