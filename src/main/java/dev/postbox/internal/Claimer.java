package dev.postbox.internal;

import dev.postbox.internal.jdbc.Retry;
import dev.postbox.internal.sql.ClaimStrategy;
import dev.postbox.internal.sql.Claimed;
import dev.postbox.internal.sql.Finish;
import dev.postbox.internal.sql.Probe;
import dev.postbox.internal.sql.RowReader;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLRecoverableException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import javax.sql.DataSource;

/**
 * Runs a lane's claims: borrows a connection per claim, runs the database's {@link ClaimStrategy}
 * through the write gate, and retries deadlocks and busy errors. Used by the claim loop only.
 */
final class Claimer<T> {
  private final DataSource dataSource;
  private final ClaimStrategy strategy;
  private final RowReader<T> reader;
  private final WriteGate gate;
  private final Predicate<SQLException> isTransient;
  private final LaneReport report;

  Claimer(
      DataSource dataSource,
      ClaimStrategy strategy,
      RowReader<T> reader,
      WriteGate gate,
      Predicate<SQLException> isTransient,
      LaneReport report) {
    this.dataSource = dataSource;
    this.strategy = strategy;
    this.reader = reader;
    this.gate = gate;
    this.isTransient = isTransient;
    this.report = report;
  }

  /**
   * See {@link ClaimStrategy#claim}. If it throws, neither the claim nor the finish happened,
   * unless the connection broke after the database committed them (the acknowledgement lost): the
   * claimed rows then stay leased, unseen by this instance, until their lease runs out, and the
   * writer writes the finish again as a retry, which finds its rows gone (an INFO, not a lost
   * lease).
   */
  List<Claimed<T>> claim(int limit, Probe probe, Finish finish) throws SQLException {
    List<Claimed<T>> rows = new ArrayList<>(limit);
    Retry.transients(
        isTransient,
        () -> {
          rows.clear();
          return gate.through(
              () -> {
                Connection borrowed;
                try {
                  borrowed = dataSource.getConnection();
                } catch (SQLException e) {
                  throw new NotConnected(e);
                }
                try (Connection c = borrowed) {
                  if (!c.getAutoCommit()) {
                    c.setAutoCommit(true); // a pool may hand out either; start from a known state
                  }
                  strategy.claim(c, limit, probe, finish, reader, rows);
                }
                return null;
              });
        },
        // listeners hear of the driver's or the pool's own exception, not the wrapper
        e -> report.retried("claim", e instanceof NotConnected n ? n.cause() : e));
    return rows;
  }

  /**
   * True if a claim that threw {@code e} may have committed: its connection broke after it got one
   * (a broken connection, or the server shutting down). Not for an error with no SQLState
   * (sqlite-jdbc gives none, even for SQLITE_BUSY) or any other: the database rolled such a claim
   * back.
   */
  static boolean mayHaveCommitted(Throwable e) {
    if (!(e instanceof SQLException s) || e instanceof NotConnected) {
      return false;
    }
    String state = s.getSQLState();
    return s instanceof SQLRecoverableException
        || (state != null && (state.startsWith("08") || state.startsWith("57P")));
  }

  /** A claim that got no connection: it ran nothing, so it cannot have committed anything. */
  static final class NotConnected extends SQLException {
    NotConnected(SQLException cause) {
      super(cause.getMessage(), cause.getSQLState(), cause.getErrorCode(), cause);
    }

    SQLException cause() {
      return (SQLException) getCause();
    }

    @Override
    public String toString() {
      return getCause().toString(); // the logs name the pool's or the driver's error, as before
    }
  }
}
