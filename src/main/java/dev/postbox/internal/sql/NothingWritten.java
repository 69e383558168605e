package dev.postbox.internal.sql;

import java.sql.SQLException;

/**
 * A claim's error that proves the claim wrote nothing: it got no connection, or its transaction
 * failed before its commit was sent, so the database rolled it back. A broken connection is no sign
 * that rows were leased unseen then. Keeps its cause's SQLState and error code (retries of
 * transient errors read them); logs and listeners are given the cause itself.
 */
public final class NothingWritten extends SQLException {
  public NothingWritten(SQLException cause) {
    super(cause.getMessage(), cause.getSQLState(), cause.getErrorCode(), cause);
  }

  /** The driver's or the pool's own exception. */
  public SQLException cause() {
    return (SQLException) getCause();
  }

  @Override
  public String toString() {
    return getCause().toString(); // the logs name the pool's or the driver's error
  }
}
