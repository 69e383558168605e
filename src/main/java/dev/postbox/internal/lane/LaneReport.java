package dev.postbox.internal.lane;

import dev.postbox.Delivery;
import dev.postbox.internal.Listeners;
import dev.postbox.internal.sql.Claimed;
import dev.postbox.internal.sql.KeyOrder;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a lane tells its listener and its log once outcomes are committed: deliveries, failures,
 * parkings, lost leases; and the finished rows it counts toward the next vacuum. Each method queues
 * its calls on {@code afterCommit}, which the writer runs only after the commit: a rolled-back try
 * reports nothing. Thread-safe.
 */
final class LaneReport {
  private static final Logger log = LoggerFactory.getLogger(LaneReport.class);

  private final LaneSettings settings;
  private final String table;
  private final Vacuum vacuum;
  private final KeyOrder keyOrder; // null: the table is not ordered by key
  private final LaneCounts counts = new LaneCounts();

  LaneReport(LaneSettings settings, String table, Vacuum vacuum, KeyOrder keyOrder) {
    this.settings = settings;
    this.table = table;
    this.vacuum = vacuum;
    this.keyOrder = keyOrder;
  }

  /**
   * Counts {@code written} finished rows of {@code rows} toward the next vacuum and queues their
   * {@code delivered} calls; returns how many were not written (lease lost).
   */
  int finished(List<Outcome> rows, int written, List<Runnable> afterCommit) {
    vacuum.finished(written);
    afterCommit.add(() -> counts.addDelivered(written));
    if (settings.listener() != Listeners.NONE) { // no per-message garbage for the default
      afterCommit.add(
          () -> {
            for (Outcome o : rows) {
              Listeners.call(
                  () ->
                      settings
                          .listener()
                          .delivered(delivery(o.row()), Duration.ofNanos(o.elapsedNanos())));
            }
          });
    }
    return rows.size() - written;
  }

  /**
   * {@code lost} outcomes matched no row. {@code retry}: an earlier try of the same write (its
   * connection broke, or a claim's last batch failed before its COMMIT ran) may have committed
   * them: then they are not reported as lost leases.
   */
  void notWritten(int lost, boolean retry, List<Runnable> afterCommit) {
    if (lost > 0 && retry) {
      afterCommit.add(
          () ->
              log.info(
                  "{} - {} outcomes on {} matched no row when written again after a try that may"
                      + " have committed them: it had, or their leases moved on",
                  settings.instanceId(),
                  lost,
                  table));
    } else if (lost > 0) {
      afterCommit.add(
          () -> {
            log.warn(
                "{} - {} outcomes on {} not recorded: lease lost (another instance took the rows"
                    + " over)",
                settings.instanceId(),
                lost,
                table);
            Listeners.call(() -> settings.listener().leaseLost(table, lost));
          });
    }
  }

  /** A row was parked with {@code error}: WARN and {@code parked}. */
  void parked(Outcome o, String error, List<Runnable> afterCommit) {
    Claimed<?> row = o.row();
    Delivery d = delivery(row);
    afterCommit.add(
        () -> {
          counts.addParked();
          log.warn(
              "{} - parked {} id={} ref={} topic={} after {} attempts: {}{}",
              settings.instanceId(),
              table,
              row.id(),
              row.ref(),
              row.topic(),
              row.attempt(),
              error,
              keyNote(row.key()));
          Listeners.call(() -> settings.listener().parked(d, error));
        });
  }

  /** What parking a row of {@code key} does to its key, for the WARN. */
  private String keyNote(String key) {
    if (key == null || keyOrder == null) {
      return "";
    }
    return keyOrder.parkedBlocks()
        ? "; key '"
            + key
            + "' is now blocked: its later messages wait until this one is replayed or discarded"
        : "; the later messages of key '" + key + "' go on without it";
  }

  /** A delivery failed and is retried after its delay: {@code failed}. */
  void failed(Outcome o, List<Runnable> afterCommit) {
    Delivery d = delivery(o.row());
    afterCommit.add(
        () -> {
          counts.addFailed();
          Listeners.call(() -> settings.listener().failed(d, o.error(), o.delay()));
        });
  }

  /** {@return what this lane finished since it started} */
  LaneCounts counts() {
    return counts;
  }

  /** A claim or an outcome write hit a transient failure and is retried. */
  void retried(String operation, SQLException e) {
    Listeners.call(() -> settings.listener().retried(table, operation, e));
  }

  private Delivery delivery(Claimed<?> row) {
    return new Delivery(table, row.id(), row.ref(), row.topic(), row.attempt());
  }
}
