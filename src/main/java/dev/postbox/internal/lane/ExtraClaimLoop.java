package dev.postbox.internal.lane;

import dev.postbox.internal.sql.Claimed;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One of a lane's extra claim loops ({@code <instance>-<table>-claims-<n>}), which put several
 * claims in flight while a backlog lasts: it claims only while claims come back full ({@link
 * Backlog}) and deliveries succeed, never probes, and sleeps again after a short or failed claim or
 * a failed delivery. The lane's {@link ClaimLoop} alone polls an idle table.
 */
final class ExtraClaimLoop<T> implements Runnable {
  private static final Logger log = LoggerFactory.getLogger(ExtraClaimLoop.class);

  private final ClaimParts<T> parts;
  private final Claimer<T> claimer;
  private final ClaimWait wait; // only for the pause after an Error: nothing wakes it

  ExtraClaimLoop(ClaimParts<T> parts, Claimer<T> claimer) {
    this.parts = parts;
    this.claimer = claimer;
    this.wait = new ClaimWait(parts.state()::stopping);
  }

  @Override
  public void run() {
    parts.run(this::claimOnce, wait);
  }

  /**
   * A turn: waits for a backlog and until fewer than a batch of rows wait for a slot, claims a
   * batch and starts it; a short or failed claim, or a failed delivery since the last success,
   * sends it back to waiting for the backlog. False when the lane is stopping.
   */
  private boolean claimOnce() {
    LaneState<T> state = parts.state();
    if (!state.backlog.awaitFull(state::stopping) || !parts.slots().awaitRoom()) {
      return false;
    }
    int limit = parts.settings().batchSize();
    if (!parts.outage().succeeding()) {
      // failures may be an outage: the main loop alone claims (and probes) until one succeeds
      state.backlog.claimed(false);
      return true;
    }
    List<Claimed<T>> rows = new ArrayList<>(limit);
    Carried carried = parts.writer().queue().takeForClaim();
    state.idle.extraClaimStarted();
    try {
      parts.partFailed(claimer, parts.claim(claimer, limit, null, carried, false, rows));
      if (carried != null) {
        parts.writer().carried(carried);
        carried = null;
      }
    } catch (Throwable e) {
      parts.claimFailed(claimer, e, carried);
      state.backlog.claimed(false);
      if (e instanceof Error error) {
        throw error;
      }
      log.warn("{} - extra claim failed: {}", Thread.currentThread().getName(), e.toString());
      return true;
    } finally {
      state.idle.extraClaimEnded();
    }
    if (rows.size() < limit) {
      state.backlog.claimed(false);
    }
    if (!rows.isEmpty()) {
      parts.deliver(rows, false);
    }
    return true;
  }
}
