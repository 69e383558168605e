package dev.postbox.internal.lane;

import dev.postbox.internal.Listeners;
import dev.postbox.internal.sql.ClaimReport;
import dev.postbox.internal.sql.Claimed;
import dev.postbox.internal.sql.Probe;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a lane's claim loops ({@link ClaimLoop}, {@link ExtraClaimLoop}) share: the lane's parts,
 * and what each does around a claim (hold its rows, hand back what a failed claim carried, start
 * the deliveries, pause, survive an Error). Each loop has its own {@link Claimer} and {@link
 * ClaimWait}.
 *
 * @param stopAfter stops the lane after a loop failed for a whole lease
 */
record ClaimParts<T>(
    String table,
    LaneSettings settings,
    LaneState<T> state,
    Deliveries<T> deliveries,
    OutcomeWriter writer,
    Outage outage,
    BiConsumer<String, Throwable> stopAfter) {
  private static final Logger log = LoggerFactory.getLogger(ClaimParts.class);
  private static final long SOON_NANOS = TimeUnit.MILLISECONDS.toNanos(4);

  /** One turn of a loop; false when the lane is stopping. */
  interface Turn {
    boolean once();
  }

  DeliverySlots<T> slots() {
    return deliveries.slots();
  }

  /** {@code <instance>-<table>}, for logs. */
  String name() {
    return settings.instanceId() + "-" + table;
  }

  /** Runs {@code turn} until the lane stops; an Error pauses it, one lasting a lease stops it. */
  void run(Turn turn, ClaimWait wait) {
    LoopGuard guard = new LoopGuard(Thread.currentThread().getName(), settings.lease());
    while (!state.stopping()) {
      try {
        if (!turn.once()) {
          return;
        }
        guard.succeeded();
      } catch (Throwable e) { // an Error: an SQLException or a bug is handled in the turn
        Duration pause = guard.pauseAfter(e);
        if (pause == null) {
          stopAfter.accept("claim loop", e);
          return;
        }
        pause(wait, pause);
      }
    }
  }

  /** Waits up to {@code timeout} on {@code wait}; a long wait tells the writer not to wait. */
  void pause(ClaimWait wait, Duration timeout) {
    long nanos = timeout.toNanos();
    if (nanos > SOON_NANOS) { // the writer should not wait for a claim this far off
      wait.claiming(false);
      writer.queue().claimsPaused();
    }
    wait.await(nanos);
  }

  /** Claims into {@code rows} with {@code claimer} and holds what it claimed. */
  ClaimReport claim(
      Claimer<T> claimer,
      int limit,
      Probe probe,
      Carried carried,
      boolean searchAll,
      List<Claimed<T>> rows)
      throws SQLException {
    ClaimReport report = claimer.claim(limit, probe, carried, searchAll, rows);
    state.held.addAll(rows);
    return report;
  }

  /**
   * A part of a claim that failed after an earlier part committed ({@link
   * ClaimReport#failedAfterCommit}): handled as a failed claim that carried nothing (the first part
   * recorded the carried successes), while the rows taken before it are delivered.
   */
  void partFailed(Claimer<T> claimer, ClaimReport report) {
    if (report.failedAfterCommit() != null) {
      claimFailed(claimer, report.failedAfterCommit(), null);
      log.warn(
          "{} - part of a claim failed after its first part committed; its rows are delivered, the"
              + " rest is left to the next claim: {}",
          name(),
          report.failedAfterCommit().toString());
    }
  }

  /**
   * What a failed claim leaves: if it may have committed ({@link Claimer#mayHaveCommitted}), rows
   * it leased that this lane never saw, until a lease has passed; the successes it carried go back
   * to the writer, as a retry of it if it (or an earlier try of it) may have committed them.
   */
  void claimFailed(Claimer<T> claimer, Throwable e, Carried carried) {
    boolean mayHaveCommitted = claimer.mayHaveCommitted(e);
    if (mayHaveCommitted) {
      state.idle.claimMayHaveCommitted(settings.lease());
    }
    if (carried != null) {
      writer.queue().giveBack(carried, mayHaveCommitted || carried.maybeWritten);
    }
  }

  /** Tells the listener and starts the deliveries of {@code rows}, claimed just now. */
  void deliver(List<Claimed<T>> rows, boolean mayProbe) {
    Listeners.call(() -> settings.listener().claimed(table, rows.size()));
    deliveries.startAll(rows, mayProbe);
  }
}
