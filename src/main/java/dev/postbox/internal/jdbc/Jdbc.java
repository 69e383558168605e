package dev.postbox.internal.jdbc;

import dev.postbox.PostboxException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/**
 * Work on connections borrowed from a {@link DataSource}; the one place SQLException is wrapped.
 */
public final class Jdbc {
  /** The statement that ends a transaction begun by a statement ({@link #inTransactionBegunBy}). */
  public static final String COMMIT = "COMMIT";

  /** The statement that undoes such a transaction. */
  public static final String ROLLBACK = "ROLLBACK";

  private Jdbc() {}

  /** Runs {@code work} on a connection from {@code dataSource} in auto-commit mode. */
  public static <T> T autoCommit(DataSource dataSource, SqlFunction<Connection, T> work)
      throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      if (!c.getAutoCommit()) {
        c.setAutoCommit(true);
      }
      return work.apply(c);
    }
  }

  /**
   * Runs {@code work} in one transaction on a connection from {@code dataSource}: committed if it
   * returns, rolled back if it throws; the connection is handed back in auto-commit mode.
   */
  public static <T> T inTransaction(DataSource dataSource, SqlFunction<Connection, T> work)
      throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      try {
        T result = work.apply(c);
        c.commit();
        return result;
      } catch (Throwable e) {
        try {
          c.rollback();
        } catch (SQLException rollbackFailure) {
          e.addSuppressed(rollbackFailure);
        }
        throw e;
      } finally {
        c.setAutoCommit(true);
      }
    }
  }

  /**
   * Runs {@code work} in one transaction opened by the statement {@code begin} (such as SQLite's
   * {@code BEGIN IMMEDIATE}, which takes the write lock up front) on a connection from {@code
   * dataSource}: committed if it returns, rolled back if it throws. The connection is put in
   * auto-commit mode first, since a pool configured with auto-commit off hands it out inside a
   * transaction, where a second BEGIN fails.
   */
  public static <T> T inTransactionBegunBy(
      DataSource dataSource, String begin, SqlFunction<Connection, T> work) throws SQLException {
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement()) {
      if (!c.getAutoCommit()) {
        c.setAutoCommit(true);
      }
      s.execute(begin);
      try {
        T result = work.apply(c);
        s.execute(COMMIT);
        return result;
      } catch (Throwable e) {
        try {
          s.execute(ROLLBACK);
        } catch (SQLException rollbackFailure) {
          e.addSuppressed(rollbackFailure);
        }
        throw e;
      }
    }
  }

  /** Wraps {@code e} in a {@link PostboxException} whose message starts with {@code what}. */
  public static PostboxException wrap(String what, SQLException e) {
    return new PostboxException(
        what + " failed: " + e.getMessage() + " (SQLState " + e.getSQLState() + ")", e);
  }
}
