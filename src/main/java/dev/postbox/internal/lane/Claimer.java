package dev.postbox.internal.lane;

import dev.postbox.internal.dialect.Dialect;
import dev.postbox.internal.jdbc.Retry;
import dev.postbox.internal.sql.ClaimReport;
import dev.postbox.internal.sql.ClaimRequest;
import dev.postbox.internal.sql.ClaimStrategy;
import dev.postbox.internal.sql.Claimed;
import dev.postbox.internal.sql.Finish;
import dev.postbox.internal.sql.NothingWritten;
import dev.postbox.internal.sql.Probe;
import dev.postbox.internal.sql.RowReader;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
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
  private final Dialect dialect;
  private final LaneReport report;

  Claimer(
      DataSource dataSource,
      ClaimStrategy strategy,
      RowReader<T> reader,
      WriteGate gate,
      Dialect dialect,
      LaneReport report) {
    this.dataSource = dataSource;
    this.strategy = strategy;
    this.reader = reader;
    this.gate = gate;
    this.dialect = dialect;
    this.report = report;
  }

  /**
   * See {@link ClaimStrategy#claim}: claims into {@code rows}. If it throws, neither the claim nor
   * the finish happened, unless the connection broke after the database committed them (the
   * acknowledgement lost): the claimed rows then stay leased, unseen by this instance, until their
   * lease runs out, and the writer writes the finish again as a retry, which finds its rows gone
   * (an INFO, not a lost lease). The same holds for the rows of a part that failed after an earlier
   * part committed ({@link ClaimReport#failedAfterCommit}). A try that failed without proving it
   * wrote nothing (no {@link NothingWritten}) marks the finish {@link Finish#maybeWritten}, for the
   * claim's retry and the writer: MariaDB's last batch, for one, runs its COMMIT after a lock wait
   * timeout of its UPDATE, and the claim is retried.
   */
  ClaimReport claim(int limit, Probe probe, Finish finish, boolean searchAll, List<Claimed<T>> rows)
      throws SQLException {
    ClaimRequest<T> request = new ClaimRequest<>(limit, probe, finish, searchAll, reader, rows);
    return Retry.transients(
        dialect::isTransient,
        () -> {
          rows.clear();
          try {
            return gate.through(() -> claimOnce(request));
          } catch (SQLException e) {
            if (finish != null && !(e instanceof NothingWritten)) {
              finish.maybeWritten = true;
            }
            throw e;
          }
        },
        // listeners hear of the driver's or the pool's own exception, not the wrapper
        e -> report.retried("claim", e instanceof NothingWritten n ? n.cause() : e));
  }

  private ClaimReport claimOnce(ClaimRequest<T> request) throws SQLException {
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
      return strategy.claim(c, request);
    }
  }

  /**
   * True if a claim that threw {@code e} may have committed: its connection broke ({@link
   * Dialect#connectionBroken}) after it may have sent its commit. Not for an error that proves
   * nothing was written ({@link NothingWritten}: no connection, or a transaction that failed before
   * its commit), nor any other (sqlite-jdbc gives no SQLState at all, even for SQLITE_BUSY): the
   * database rolled such a claim back.
   */
  boolean mayHaveCommitted(Throwable e) {
    return e instanceof SQLException s
        && !(e instanceof NothingWritten)
        && dialect.connectionBroken(s);
  }
}
