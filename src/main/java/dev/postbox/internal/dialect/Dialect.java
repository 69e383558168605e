package dev.postbox.internal.dialect;

import dev.postbox.Database;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLRecoverableException;
import java.time.Instant;

/**
 * What differs between databases for the writes of the API classes and the engine's threads: the
 * clock expression, timestamp reading, insert-if-absent, error classification. The statements the
 * engine runs on a queue table live in {@code dev.postbox.internal.sql}, one home per database.
 */
public interface Dialect {

  Database database();

  /** SQL expression for the database's current time, in the column type of the shipped schema. */
  String now();

  /** SQL expression for the database's current time plus one bound {@code long} of milliseconds. */
  String nowPlusMillis();

  /** Reads a timestamp column written by {@link #now()} or {@link #nowPlusMillis()}. */
  Instant readInstant(ResultSet rs, String column) throws SQLException;

  /** Binds {@code t} to parameter {@code i} as the tables store times. */
  void bindInstant(PreparedStatement ps, int i, Instant t) throws SQLException;

  /**
   * True if the database runs inside this process (SQLite): no socket between the engine and it.
   * Statements are then kept prepared across borrows of a pooled connection (compiling them is a
   * tenth of the CPU otherwise), and a lane's loops run on virtual threads.
   */
  default boolean inProcess() {
    return false;
  }

  /**
   * True if one connection writes at a time (SQLite): a lane's claims and outcome writes take turns
   * through a fair lock, and the outcome writer waits briefly for more outcomes before each write.
   */
  default boolean oneWriter() {
    return false;
  }

  /**
   * An INSERT of {@code rows} value tuples that silently skips rows whose {@code uniqueColumn}
   * already exists, reporting only inserted rows in its update count; null if the database has no
   * such form that is safe (then a plain INSERT is used and duplicates are caught).
   */
  String insertSkippingDuplicates(
      String table, String columns, String valueRows, String uniqueColumn);

  /**
   * {@code insert} (a plain INSERT, or an insert-if-absent from {@link #insertSkippingDuplicates})
   * turned into one statement that also notifies {@code channel} and returns the inserted count as
   * its only row; null if the database has no notifications.
   */
  default String insertAndNotify(String insert, String channel) {
    return null;
  }

  /** True if {@code e} reports a unique-key violation. */
  boolean isDuplicateKey(SQLException e);

  /**
   * True if {@code e} is a deadlock, lock timeout, busy or serialization failure worth retrying.
   */
  boolean isTransient(SQLException e);

  /**
   * True if {@code e} says the connection to the database broke (or the server is shutting down):
   * what was sent before it, a COMMIT included, may have been carried out with its answer lost, and
   * a retry may find it written. SQLState class 08 (connection exception), PostgreSQL's 57P (the
   * server shutting down), or a {@link SQLRecoverableException}.
   */
  default boolean connectionBroken(SQLException e) {
    String state = e.getSQLState();
    return e instanceof SQLRecoverableException
        || (state != null && (state.startsWith("08") || state.startsWith("57P")));
  }
}
