package dev.postbox.internal.lane;

import dev.postbox.internal.Listeners;
import dev.postbox.internal.sql.ClaimReport;
import dev.postbox.internal.sql.Claimed;
import dev.postbox.internal.sql.Probe;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BiConsumer;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A lane's claim loop, on its own thread ({@code <instance>-<table>-claims}): waits for a free slot
 * (as a lane's only loop, while claims come back full and sends succeed and are slow next to
 * claims, only until fewer than a batch of claimed rows wait for one), claims a batch (carrying the
 * successes delivered since the last claim), starts the deliveries, and polls adaptively: a claim
 * that found rows is followed by another at once, an empty one waits 1 ms, then twice as long after
 * each further empty one up to the poll interval, each wait cut short by {@link #wakeUp}. In an
 * outage it claims one probe at a time.
 *
 * <p>A lane may have extra loops ({@code <instance>-<table>-claims-<n>}) so that several claims are
 * in flight while the backlog lasts: an extra loop claims only while claims come back full ({@link
 * Backlog}) and deliveries succeed, never probes, and sleeps again after a short or failed claim or
 * a failed delivery.
 */
final class ClaimLoop<T> implements Runnable {
  private static final Logger log = LoggerFactory.getLogger(ClaimLoop.class);
  private static final long FIRST_IDLE_WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
  private static final long SOON_NANOS = TimeUnit.MILLISECONDS.toNanos(4);

  private final String name;
  private final String table;
  private final LaneSettings settings;
  private final Claimer<T> claimer;
  private final Deliveries<T> deliveries;
  private final DeliverySlots<T> slots;
  private final OutcomeWriter writer;
  private final Outage outage;
  private final Map<Long, Claimed<T>> held;
  private final BooleanSupplier stopping;
  private final BiConsumer<String, Throwable> stopAfter;
  private final Backlog backlog;
  private final IdleWatch idle;
  private final boolean extra; // an extra loop: claims only while the backlog lasts
  private final boolean onlyLoop; // the lane has no extra loops

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition woken = lock.newCondition();
  private boolean wakeRequested; // guarded by lock
  // will claim again soon (not waiting long): it may carry the writer's successes
  private volatile boolean claiming;
  // the loop's own state across claims
  private long errorPauseMillis = 100;
  private long idleWaitNanos;
  // a batch's sends take more than a quarter of the last claim's time: claim ahead of them
  private boolean sendBound;
  private long seenSentRows;
  private long seenSendNanos;
  private long sendNanosPerRow;

  ClaimLoop(
      String name,
      String table,
      LaneSettings settings,
      Claimer<T> claimer,
      Deliveries<T> deliveries,
      DeliverySlots<T> slots,
      OutcomeWriter writer,
      Outage outage,
      Map<Long, Claimed<T>> held,
      BooleanSupplier stopping,
      BiConsumer<String, Throwable> stopAfter,
      Backlog backlog,
      IdleWatch idle,
      boolean extra,
      boolean onlyLoop) {
    this.name = name;
    this.table = table;
    this.settings = settings;
    this.claimer = claimer;
    this.deliveries = deliveries;
    this.slots = slots;
    this.writer = writer;
    this.outage = outage;
    this.held = held;
    this.stopping = stopping;
    this.stopAfter = stopAfter;
    this.backlog = backlog;
    this.idle = idle;
    this.extra = extra;
    this.onlyLoop = onlyLoop;
  }

  /** True while the loop will claim again soon: the writer may leave successes for it. */
  boolean claimingSoon() {
    return claiming;
  }

  /** Cuts the current wait short: new rows were committed, or the lane is stopping. */
  void wakeUp() {
    lock.lock();
    try {
      wakeRequested = true;
      woken.signalAll();
    } finally {
      lock.unlock();
    }
  }

  @Override
  public void run() {
    claiming = !extra;
    LoopGuard guard = new LoopGuard(Thread.currentThread().getName(), settings.lease());
    try {
      while (!stopping.getAsBoolean()) {
        try {
          if (!claimOnce()) {
            return;
          }
          guard.succeeded();
        } catch (Throwable e) { // an Error: an SQLException or a bug is handled in claimOnce
          Duration pause = guard.pauseAfter(e);
          if (pause == null) {
            stopAfter.accept("claim loop", e);
            return;
          }
          waitForWakeUp(pause);
        }
      }
    } finally {
      claiming = false;
      if (!extra) {
        writer.queue().claimsPaused();
      }
    }
  }

  /**
   * One turn: waits for a free slot, claims and starts the deliveries, or waits after an empty or
   * failed claim. False when the lane is stopping.
   */
  private boolean claimOnce() {
    if (extra) {
      return extraClaimOnce();
    }
    // The lane's only loop, in a backlog whose sends are slow (a batch's sends, concurrency at a
    // time, take more than a quarter of the last claim's time): the next claim is under way while
    // the last one's rows still wait for slots, so slow sends do not run out of rows during a
    // claim; that saves up to the shorter of the two per batch. Otherwise it waits until every row
    // started: claimed early, a claim carries fewer finishes, and on SQLite (one writer) the extra
    // writes took W2 from 0.99x to 0.39x the floor (0.65-1.00x when judged by the time the loop
    // waited for slots, which a busy CPU stretches for fast sends too). No-op sends take about a
    // fiftieth of a claim per batch.
    boolean ready =
        onlyLoop && sendBound && backlog.full() && outage.succeeding()
            ? slots.awaitRoom()
            : slots.awaitSlot();
    if (!ready) {
      return false;
    }
    long claimStarted = System.nanoTime();
    int limit = outage.claimLimit(settings.batchSize());
    if (limit == 0) { // outage: wait for the probe time, or for the probe in flight to end
      waitForWakeUp(outage.probing() ? settings.pollInterval() : outage.untilProbe());
      return true;
    }
    List<Claimed<T>> rows;
    Carried carried = null; // successes this claim records too
    boolean probeClaim = false;
    try {
      // in an outage the one row claimed is a probe, chosen by the outage
      List<Probe> probes = outage.probes();
      probeClaim = probes != null;
      carried = probeClaim ? null : writer.queue().takeForClaim();
      // an empty claim proves the lane idle if nothing was held, no extra loop's claim was in
      // flight and nothing else happened meanwhile (an extra claim's rows are locked or leased, so
      // this claim skips them, and reach the held map only when that claim returns)
      long activity = idle.touched();
      boolean mayProveIdle =
          !probeClaim
              && carried == null
              && held.isEmpty()
              && !idle.extraClaimInFlight()
              && !idle.unseenLeasesPossible();
      // searching every key beyond a full window costs a walk over all keys: only for a proof
      List<Claimed<T>> claimed = new ArrayList<>(limit);
      ClaimReport report =
          claim(
              limit,
              probeClaim ? probes.get(0) : null,
              carried,
              mayProveIdle && idle.awaited(),
              claimed);
      if (carried != null) {
        writer.carried(carried);
        carried = null;
      }
      if (claimed.isEmpty()
          && mayProveIdle
          && report.searchedAll()
          && report.failedAfterCommit() == null
          && held.isEmpty()
          && idle.activity() == activity) {
        idle.proved(activity);
      }
      partFailed(report);
      for (int i = 1; probeClaim && claimed.isEmpty() && i < probes.size(); i++) {
        claim(limit, probes.get(i), null, false, claimed);
      }
      rows = claimed;
      sendBound = sendsSlowNextToClaim(claimed.size(), System.nanoTime() - claimStarted);
      outage.claimed(rows);
      backlog.claimed(!probeClaim && rows.size() >= limit);
      errorPauseMillis = 100;
    } catch (Throwable e) {
      claimFailed(e, carried);
      outage.claimed(List.of());
      backlog.claimed(false);
      if (e instanceof Error error) {
        throw error;
      }
      log.warn("{} - claim failed, retrying in {} ms: {}", name, errorPauseMillis, e.toString());
      waitForWakeUp(Duration.ofMillis(errorPauseMillis));
      errorPauseMillis =
          Math.min(errorPauseMillis * 2, settings.pollInterval().toMillis() * 10 + 100);
      return true;
    }
    if (rows.isEmpty()) {
      long pollNanos = settings.pollInterval().toNanos();
      idleWaitNanos = idleWaitNanos == 0 ? pollNanos : idleWaitNanos;
      waitForWakeUp(Duration.ofNanos(idleWaitNanos));
      idleWaitNanos = Math.min(idleWaitNanos * 2, pollNanos);
      return true;
    }
    // rows are being added: after the next empty claim look again soon, not only when woken,
    // because a wake-up can lag far behind its commit (pgjdbc hands NOTIFYs over only once none
    // has arrived for 1 ms: under a steady stream of adds, hundreds of ms late)
    idleWaitNanos = FIRST_IDLE_WAIT_NANOS;
    Listeners.call(() -> settings.listener().claimed(table, rows.size()));
    // only a probe claim may start a delivery in an outage: a batch claimed before the outage
    // began goes back, due as before, instead of sending a row the outage does not track as probe
    deliveries.startAll(rows, probeClaim);
    return true;
  }

  /**
   * A part of a claim that failed after an earlier part committed ({@link
   * ClaimReport#failedAfterCommit}): handled as a failed claim that carried nothing (the first part
   * recorded the carried successes), while the rows taken before it are delivered.
   */
  private void partFailed(ClaimReport report) {
    if (report.failedAfterCommit() != null) {
      claimFailed(report.failedAfterCommit(), null);
      log.warn(
          "{} - part of a claim failed after its first part committed; its rows are delivered, the"
              + " rest is left to the next claim: {}",
          name,
          report.failedAfterCommit().toString());
    }
  }

  /**
   * What a failed claim leaves: if it may have committed ({@link Claimer#mayHaveCommitted}), rows
   * it leased that this lane never saw, until a lease has passed; the successes it carried go back
   * to the writer, as a retry of it if it (or an earlier try of it) may have committed them.
   */
  private void claimFailed(Throwable e, Carried carried) {
    boolean mayHaveCommitted = claimer.mayHaveCommitted(e);
    if (mayHaveCommitted) {
      idle.claimMayHaveCommitted(settings.lease());
    }
    if (carried != null) {
      writer.queue().giveBack(carried, mayHaveCommitted || carried.maybeWritten);
    }
  }

  /**
   * An extra loop's turn: waits for a backlog and until fewer than a batch of rows wait for a slot,
   * claims a batch and starts it; a short or failed claim, or a failed delivery since the last
   * success, sends it back to waiting for the backlog. False when the lane is stopping.
   */
  private boolean extraClaimOnce() {
    if (!backlog.awaitFull(stopping) || !slots.awaitRoom()) {
      return false;
    }
    int limit = settings.batchSize();
    if (!outage.succeeding()) {
      // failures may be an outage: the main loop alone claims (and probes) until one succeeds
      backlog.claimed(false);
      return true;
    }
    List<Claimed<T>> rows = new ArrayList<>(limit);
    Carried carried = writer.queue().takeForClaim();
    idle.extraClaimStarted();
    try {
      partFailed(claim(limit, null, carried, false, rows));
      if (carried != null) {
        writer.carried(carried);
        carried = null;
      }
    } catch (Throwable e) {
      claimFailed(e, carried);
      backlog.claimed(false);
      if (e instanceof Error error) {
        throw error;
      }
      log.warn("{} - extra claim failed: {}", Thread.currentThread().getName(), e.toString());
      return true;
    } finally {
      idle.extraClaimEnded();
    }
    if (rows.size() < limit) {
      backlog.claimed(false);
    }
    if (!rows.isEmpty()) {
      Listeners.call(() -> settings.listener().claimed(table, rows.size()));
      deliveries.startAll(rows, false);
    }
    return true;
  }

  /**
   * True if {@code rows} sends, the lane's concurrency at a time, at the time per send of the rows
   * delivered since the last look, take more than a quarter of a claim that took {@code
   * claimNanos}. A batch transport sends a claim's rows in one slot, so this underestimates its
   * time: such a lane claims ahead less often, never wrongly.
   */
  private boolean sendsSlowNextToClaim(int rows, long claimNanos) {
    long sent = deliveries.sentRows();
    long nanos = deliveries.sendNanos();
    if (sent > seenSentRows) {
      sendNanosPerRow = (nanos - seenSendNanos) / (sent - seenSentRows);
      seenSentRows = sent;
      seenSendNanos = nanos;
    }
    return 4 * sendNanosPerRow * rows / settings.concurrency() > claimNanos;
  }

  /** Claims into {@code rows} and holds what it claimed. */
  private ClaimReport claim(
      int limit, Probe probe, Carried carried, boolean searchAll, List<Claimed<T>> rows)
      throws SQLException {
    ClaimReport report = claimer.claim(limit, probe, carried, searchAll, rows);
    for (Claimed<T> row : rows) {
      held.put(row.id(), row);
    }
    return report;
  }

  private void waitForWakeUp(Duration timeout) {
    long nanos = timeout.toNanos();
    if (nanos > SOON_NANOS) { // the writer should not wait for a claim this far off
      claiming = false;
      writer.queue().claimsPaused();
    }
    lock.lock();
    try {
      while (!wakeRequested && !stopping.getAsBoolean() && nanos > 0) {
        nanos = woken.awaitNanos(nanos);
      }
      wakeRequested = false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      lock.unlock();
      claiming = !stopping.getAsBoolean();
    }
  }
}
