package dev.postbox.internal.dialect;

import dev.postbox.Database;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLRecoverableException;
import java.time.Instant;

/**
 * What differs between databases besides their statements: the clock expression the statements use,
 * timestamp reading and binding, error classification. Every statement lives in the statement
 * catalogue of {@code dev.postbox.internal.sql}, one folder per database.
 */
public interface Dialect {

  Database database();

  /** SQL expression for the database's current time, in the column type of the shipped schema. */
  String now();

  /** SQL expression for the database's current time plus one bound {@code long} of milliseconds. */
  String nowPlusMillis();

  /** Reads a timestamp column written by {@link #now()} or {@link #nowPlusMillis()}. */
  default Instant readInstant(ResultSet rs, String column) throws SQLException {
    return readInstant(rs, rs.findColumn(column));
  }

  /**
   * {@link #readInstant(ResultSet, String)} by the column's position, for a reader of many rows
   * that looks its columns up once.
   */
  Instant readInstant(ResultSet rs, int column) throws SQLException;

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
