package dev.postbox.internal.lane;

import dev.postbox.RetryLater;
import dev.postbox.internal.jdbc.Text;
import dev.postbox.internal.sql.Claimed;
import dev.postbox.internal.sql.QueueSql;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Writes one batch of outcomes on a connection: all successes of one claim count in one DELETE (or
 * UPDATE to done), every other outcome one fenced UPDATE; and says what was written ({@link
 * LaneReport}) once it is committed. Stateless; used by the writer thread and, for successes a
 * claim carried, by the claim loop.
 */
final class OutcomeBatch {
  private final QueueSql sql;
  private final LaneSettings settings;
  private final LaneReport report;
  private final boolean keepDone;

  OutcomeBatch(QueueSql sql, LaneSettings settings, LaneReport report) {
    this.sql = sql;
    this.settings = settings;
    this.report = report;
    this.keepDone = !settings.retention().isZero();
  }

  /** True if {@code batch} is written by one statement, which needs no transaction around it. */
  static boolean oneStatement(List<Outcome> batch) {
    int claims = batch.get(0).row().claims();
    for (Outcome o : batch) {
      if (batch.size() > 1 && (o.kind() != Outcome.Kind.SUCCEEDED || o.row().claims() != claims)) {
        return false;
      }
    }
    return true;
  }

  /**
   * What a claim recorded of {@code c}: reported as if this class had written it, as a retry if an
   * earlier try of the claim may have written it ({@link Carried#maybeWritten}).
   */
  void carried(Carried c, List<Runnable> afterCommit) {
    int lost = report.finished(c.outcomes, c.written, afterCommit);
    report.notWritten(lost, c.maybeWritten, afterCommit);
  }

  /**
   * Writes {@code batch} on {@code c}. {@code retry}: an earlier try of this batch failed in a way
   * that may have committed it (the connection broke), so rows that no longer match may have been
   * written by that try rather than taken over: not reported as lost leases.
   */
  Void write(Connection c, List<Outcome> batch, boolean retry, List<Runnable> afterCommit)
      throws SQLException {
    if (batch.size() > 1 && oneStatement(batch)) { // the usual case: skip the grouping
      int lost = writeSuccesses(c, batch.get(0).row().claims(), batch, afterCommit);
      report.notWritten(lost, retry, afterCommit);
      return null;
    }
    Map<Integer, List<Outcome>> successesByClaims = new TreeMap<>();
    List<Outcome> others = new ArrayList<>();
    for (Outcome o : batch) {
      if (o.kind() == Outcome.Kind.SUCCEEDED) {
        successesByClaims.computeIfAbsent(o.row().claims(), a -> new ArrayList<>()).add(o);
      } else {
        others.add(o);
      }
    }
    int lost = 0;
    for (Map.Entry<Integer, List<Outcome>> group : successesByClaims.entrySet()) {
      lost += writeSuccesses(c, group.getKey(), group.getValue(), afterCommit);
    }
    for (Outcome o : others) {
      lost += writeOther(c, o, retry, afterCommit) ? 0 : 1;
    }
    report.notWritten(lost, retry, afterCommit);
    return null;
  }

  private int writeSuccesses(
      Connection c, int claims, List<Outcome> rows, List<Runnable> afterCommit)
      throws SQLException {
    List<Long> ids = new ArrayList<>(rows.size());
    for (Outcome o : rows) {
      ids.add(o.row().id());
    }
    int written = sql.finish(c, settings.instanceId(), claims, ids, keepDone);
    return report.finished(rows, written, afterCommit);
  }

  /**
   * A failure, a parking or a hand-back; false if it matched no row (the row's lease was lost, or,
   * on a {@code retry}, the earlier try wrote it). A retried parking that matched nothing is
   * reported if the row stands parked by this claim; a retried failure is reported anyway, as a
   * success is: the delivery failed, whoever holds the row now.
   */
  private boolean writeOther(Connection c, Outcome o, boolean retry, List<Runnable> afterCommit)
      throws SQLException {
    Claimed<?> row = o.row();
    String owner = settings.instanceId();
    switch (o.kind()) {
      case RELEASED -> {
        return sql.release(c, row.id(), owner, row.claims(), row.due(), row.charged());
      }
      case PARKED -> {
        String error = Text.errorOf(o.error());
        if (!sql.park(c, row.id(), owner, row.claims(), row.attempt(), error)
            && !(retry && sql.parkedAt(c, row.id(), row.claims()))) {
          return false;
        }
        report.parked(o, error, afterCommit);
        return true;
      }
      case SNOOZED -> {
        String reason = Text.errorOf(o.error());
        if (sql.snooze(
            c,
            row.id(),
            owner,
            row.claims(),
            row.charged(),
            o.delay().toMillis(),
            reason,
            RetryLater.MAX_SNOOZES)) {
          report.failed(o, afterCommit);
          return true;
        }
        // snoozed too often, or the lease is lost (then the failure matches no row either)
        return writeOther(c, FailurePolicy.snoozedTooOften(o, settings), retry, afterCommit);
      }
      default -> { // FAILED, or REFUNDED: failed in an outage, attempt not counted
        boolean refunded = o.kind() == Outcome.Kind.REFUNDED;
        int attempts = refunded ? row.attempt() - 1 : row.attempt();
        // a refund leaves last_error as it was: the row has not failed on its own (see Outage)
        String error = refunded ? null : Text.errorOf(o.error());
        boolean written =
            sql.fail(c, row.id(), owner, row.claims(), attempts, o.delay().toMillis(), error);
        if (written || retry) {
          report.failed(o, afterCommit);
        }
        return written;
      }
    }
  }
}
