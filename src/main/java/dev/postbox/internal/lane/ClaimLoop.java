package dev.postbox.internal.lane;

import dev.postbox.internal.sql.ClaimReport;
import dev.postbox.internal.sql.Claimed;
import dev.postbox.internal.sql.Probe;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A lane's main claim loop, on its own thread ({@code <instance>-<table>-claims}): waits for a free
 * slot (as a lane's only loop, while claims come back full and sends succeed and are slow next to
 * claims, only until fewer than a batch of claimed rows wait for one), claims a batch (carrying the
 * successes delivered since the last claim), starts the deliveries, and polls adaptively: a claim
 * that found rows is followed by another at once, an empty one waits 1 ms, then twice as long after
 * each further empty one up to the poll interval, each wait cut short by its {@link ClaimWait}. In
 * an outage it claims one probe at a time. While claims come back full, the lane's {@link
 * ExtraClaimLoop}s claim too.
 */
final class ClaimLoop<T> implements Runnable {
  private static final Logger log = LoggerFactory.getLogger(ClaimLoop.class);
  private static final long FIRST_IDLE_WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

  private final ClaimParts<T> parts;
  private final Claimer<T> claimer;
  private final ClaimWait wait;
  private final boolean onlyLoop; // the lane has no extra loops
  // the loop's own state across claims
  private long errorPauseMillis = 100;
  private long idleWaitNanos;
  // a batch's sends take more than a quarter of the last claim's time: claim ahead of them
  private boolean sendBound;
  private long seenSentRows;
  private long seenSendNanos;
  private long sendNanosPerRow;

  ClaimLoop(ClaimParts<T> parts, Claimer<T> claimer, ClaimWait wait, boolean onlyLoop) {
    this.parts = parts;
    this.claimer = claimer;
    this.wait = wait;
    this.onlyLoop = onlyLoop;
  }

  @Override
  public void run() {
    wait.claiming(true);
    try {
      parts.run(this::claimOnce, wait);
    } finally {
      wait.claiming(false);
      parts.writer().queue().claimsPaused();
    }
  }

  /**
   * One turn: waits for a free slot, claims and starts the deliveries, or waits after an empty or
   * failed claim. False when the lane is stopping.
   */
  private boolean claimOnce() {
    LaneSettings settings = parts.settings();
    Outage outage = parts.outage();
    IdleWatch idle = parts.state().idle;
    // The lane's only loop, in a backlog whose sends are slow (a batch's sends, concurrency at a
    // time, take more than a quarter of the last claim's time): the next claim is under way while
    // the last one's rows still wait for slots, so slow sends do not run out of rows during a
    // claim; that saves up to the shorter of the two per batch. Otherwise it waits until every row
    // started: claimed early, a claim carries fewer finishes, and on SQLite (one writer) the extra
    // writes took W2 from 0.99x to 0.39x the floor (0.65-1.00x when judged by the time the loop
    // waited for slots, which a busy CPU stretches for fast sends too). No-op sends take about a
    // fiftieth of a claim per batch.
    boolean ready =
        onlyLoop && sendBound && parts.state().backlog.full() && outage.succeeding()
            ? parts.slots().awaitRoom()
            : parts.slots().awaitSlot();
    if (!ready) {
      return false;
    }
    long claimStarted = System.nanoTime();
    int limit = outage.claimLimit(settings.batchSize());
    if (limit == 0) { // outage: wait for the probe time, or for the probe in flight to end
      parts.pause(wait, outage.probing() ? settings.pollInterval() : outage.untilProbe());
      return true;
    }
    List<Claimed<T>> rows;
    Carried carried = null; // successes this claim records too
    boolean probeClaim = false;
    try {
      // in an outage the one row claimed is a probe, chosen by the outage
      List<Probe> probes = outage.probes();
      probeClaim = probes != null;
      carried = probeClaim ? null : parts.writer().queue().takeForClaim();
      // an empty claim proves the lane idle if nothing was held, no extra loop's claim was in
      // flight and nothing else happened meanwhile (an extra claim's rows are locked or leased, so
      // this claim skips them, and reach the held map only when that claim returns)
      long activity = idle.touched();
      boolean mayProveIdle =
          !probeClaim
              && carried == null
              && parts.state().held.isEmpty()
              && !idle.extraClaimInFlight()
              && !idle.unseenLeasesPossible();
      // searching every key beyond a full window costs a walk over all keys: only for a proof
      List<Claimed<T>> claimed = new ArrayList<>(limit);
      ClaimReport report =
          parts.claim(
              claimer,
              limit,
              probeClaim ? probes.get(0) : null,
              carried,
              mayProveIdle && idle.awaited(),
              claimed);
      if (carried != null) {
        parts.writer().carried(carried);
        carried = null;
      }
      if (claimed.isEmpty()
          && mayProveIdle
          && report.searchedAll()
          && report.failedAfterCommit() == null
          && parts.state().held.isEmpty()
          && idle.activity() == activity) {
        idle.proved(activity);
      }
      parts.partFailed(claimer, report);
      for (int i = 1; probeClaim && claimed.isEmpty() && i < probes.size(); i++) {
        parts.claim(claimer, limit, probes.get(i), null, false, claimed);
      }
      rows = claimed;
      sendBound = sendsSlowNextToClaim(claimed.size(), System.nanoTime() - claimStarted);
      outage.claimed(rows);
      parts.state().backlog.claimed(!probeClaim && rows.size() >= limit);
      errorPauseMillis = 100;
    } catch (Throwable e) {
      parts.claimFailed(claimer, e, carried);
      outage.claimed(List.of());
      parts.state().backlog.claimed(false);
      if (e instanceof Error error) {
        throw error;
      }
      log.warn(
          "{} - claim failed, retrying in {} ms: {}", parts.name(), errorPauseMillis, e.toString());
      parts.pause(wait, Duration.ofMillis(errorPauseMillis));
      errorPauseMillis =
          Math.min(errorPauseMillis * 2, settings.pollInterval().toMillis() * 10 + 100);
      return true;
    }
    if (rows.isEmpty()) {
      long pollNanos = settings.pollInterval().toNanos();
      idleWaitNanos = idleWaitNanos == 0 ? pollNanos : idleWaitNanos;
      parts.pause(wait, Duration.ofNanos(idleWaitNanos));
      idleWaitNanos = Math.min(idleWaitNanos * 2, pollNanos);
      return true;
    }
    // rows are being added: after the next empty claim look again soon, not only when woken,
    // because a wake-up can lag far behind its commit (pgjdbc hands NOTIFYs over only once none
    // has arrived for 1 ms: under a steady stream of adds, hundreds of ms late)
    idleWaitNanos = FIRST_IDLE_WAIT_NANOS;
    // only a probe claim may start a delivery in an outage: a batch claimed before the outage
    // began goes back, due as before, instead of sending a row the outage does not track as probe
    parts.deliver(rows, probeClaim);
    return true;
  }

  /**
   * True if {@code rows} sends, the lane's concurrency at a time, at the time per send of the rows
   * delivered since the last look, take more than a quarter of a claim that took {@code
   * claimNanos}. A batch transport sends a claim's rows in one slot, so this underestimates its
   * time: such a lane claims ahead less often, never wrongly.
   */
  private boolean sendsSlowNextToClaim(int rows, long claimNanos) {
    long sent = parts.deliveries().sentRows();
    long nanos = parts.deliveries().sendNanos();
    if (sent > seenSentRows) {
      sendNanosPerRow = (nanos - seenSendNanos) / (sent - seenSentRows);
      seenSentRows = sent;
      seenSendNanos = nanos;
    }
    return 4 * sendNanosPerRow * rows / parts.settings().concurrency() > claimNanos;
  }
}
