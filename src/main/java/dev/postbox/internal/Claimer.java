package dev.postbox.internal;

import dev.postbox.internal.jdbc.Retry;
import dev.postbox.internal.sql.ClaimReport;
import dev.postbox.internal.sql.ClaimStrategy;
import dev.postbox.internal.sql.Claimed;
import dev.postbox.internal.sql.Finish;
import dev.postbox.internal.sql.NothingWritten;
import dev.postbox.internal.sql.Probe;
import dev.postbox.internal.sql.RowReader;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLRecoverableException;
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
   * See {@link ClaimStrategy#claim}: claims into {@code rows}. If it throws, neither the claim nor
   * the finish happened, unless the connection broke after the database committed them (the
   * acknowledgement lost): the claimed rows then stay leased, unseen by this instance, until their
   * lease runs out, and the writer writes the finish again as a retry, which finds its rows gone
   * (an INFO, not a lost lease). The same holds for the rows of a part that failed after an earlier
   * part committed ({@link ClaimReport#failedAfterCommit}).
   */
  ClaimReport claim(int limit, Probe probe, Finish finish, boolean searchAll, List<Claimed<T>> rows)
      throws SQLException {
    return Retry.transients(
        isTransient,
        () -> {
          rows.clear();
          return gate.through(
              () -> {
                Connection borrowed;
                try {
                  borrowed = dataSource.getConnection();
                } catch (SQLException e) {
                  throw new NothingWritten(e);
                }
                try (Connection c = borrowed) {
                  if (!c.getAutoCommit()) {
                    c.setAutoCommit(true); // a pool may hand out either; start from a known state
                  }
                  return strategy.claim(c, limit, probe, finish, searchAll, reader, rows);
                }
              });
        },
        // listeners hear of the driver's or the pool's own exception, not the wrapper
        e -> report.retried("claim", e instanceof NothingWritten n ? n.cause() : e));
  }

  /**
   * True if a claim that threw {@code e} may have committed: its connection broke (a broken
   * connection, or the server shutting down) after it may have sent its commit. Not for an error
   * that proves nothing was written ({@link NothingWritten}: no connection, or a transaction that
   * failed before its commit), nor one with no SQLState (sqlite-jdbc gives none, even for
   * SQLITE_BUSY) or any other: the database rolled such a claim back.
   */
  static boolean mayHaveCommitted(Throwable e) {
    if (!(e instanceof SQLException s) || e instanceof NothingWritten) {
      return false;
    }
    String state = s.getSQLState();
    return s instanceof SQLRecoverableException
        || (state != null && (state.startsWith("08") || state.startsWith("57P")));
  }
}
