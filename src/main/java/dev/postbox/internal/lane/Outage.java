package dev.postbox.internal.lane;

import dev.postbox.internal.Listeners;
import dev.postbox.internal.sql.Claimed;
import dev.postbox.internal.sql.Probe;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells a broker outage from poison messages: once {@value #THRESHOLD} different rows have failed
 * for the first time with no success in between, the lane stops claiming, failures stop counting
 * against the rows, and one row at a time is sent as a probe, with growing pauses, until one
 * succeeds. A probe is the newest due row whose probe has not failed yet in this outage, so a burst
 * of poison that looks like an outage is ended by the next healthy message, and one failing row is
 * not probed again and again while others wait. Only a row's first failure is evidence: a row that
 * failed before and fails again looks like poison, so it is counted and eventually parked, however
 * many such rows retry together. A row claimed again after a crash or a lost lease has not failed
 * before, though its attempt is not its first: after a crash such rows are the oldest due, so they
 * are the ones sending when the broker goes down, and with only first attempts as evidence they
 * would fill every slot and be parked before a first attempt got one.
 *
 * <p>A delivery that runs past its timeout ({@link DeliveryTimeouts}) is a failure like any other,
 * and evidence alike: a broker that hangs every send is down as surely as one that refuses them,
 * and without the pause each hung send would hold a slot for a whole timeout and leave an abandoned
 * thread behind, while in an outage only the probe does. One message that hangs is no outage: it is
 * one failure, counted, and retried (parked after its last attempt) like poison.
 */
final class Outage {
  private static final Logger log = LoggerFactory.getLogger(Outage.class);
  static final int THRESHOLD = 3;

  private final boolean enabled;
  private final LongSupplier nanoTime;
  private final String table;
  private final LaneSettings settings;
  private final long initialPauseNanos;
  private final long maxPauseNanos;
  private final ReentrantLock lock = new ReentrantLock();
  private final Set<Long> failedSinceSuccess = new HashSet<>(); // guarded by lock
  private volatile boolean active;
  // true while failedSinceSuccess may be non-empty: lets a success skip the lock when there is
  // nothing to clear, which is every success of a healthy lane
  private volatile boolean failuresSinceSuccess;
  private long startedNanos; // guarded by lock
  private long pauseNanos; // guarded by lock
  private volatile long nextProbeNanos;
  private long probeRowId = -1; // guarded by lock
  private boolean probeRequested; // guarded by lock
  // rows whose probe failed in this outage, newest last: the next probe skips them
  private final ArrayDeque<Long> probed = new ArrayDeque<>(); // guarded by lock
  private long failedProbes; // in this outage; guarded by lock
  static final int PROBED_REMEMBERED = 16;

  Outage(LaneSettings settings, String table) {
    this(settings, table, System::nanoTime);
  }

  /** An outage detector whose time is {@code nanoTime} (tests pass their own). */
  Outage(LaneSettings settings, String table, LongSupplier nanoTime) {
    this.nanoTime = nanoTime;
    this.enabled = settings.detectOutage();
    this.settings = settings;
    this.table = table;
    this.initialPauseNanos = settings.pollInterval().toNanos();
    this.maxPauseNanos = Math.max(Duration.ofSeconds(30).toNanos(), initialPauseNanos);
  }

  /**
   * How many rows to claim now: all of a batch when healthy; in an outage one probe once its pause
   * has passed and no probe is in flight, else none. Deliveries that started before the outage do
   * not hold the probe back: one of them may hang for good.
   */
  int claimLimit(int batchSize) {
    if (!active) {
      return batchSize;
    }
    lock.lock();
    try {
      probeRequested = active && probeRowId == -1 && nanoTime.getAsLong() - nextProbeNanos >= 0;
      return probeRequested ? 1 : active ? 0 : batchSize;
    } finally {
      lock.unlock();
    }
  }

  /** True while a probe is being delivered. */
  boolean probing() {
    lock.lock();
    try {
      return probeRowId != -1;
    } finally {
      lock.unlock();
    }
  }

  /**
   * The delivery of row {@code rowId} ended, however: if it was the probe, the next one may go once
   * the pause has passed (a failed probe already set it; a probe that ended otherwise, say rejected
   * or interrupted, leaves it as it was).
   */
  void ended(long rowId) {
    if (!active) {
      return;
    }
    lock.lock();
    try {
      if (probeRowId == rowId) {
        probeRowId = -1;
      }
    } finally {
      lock.unlock();
    }
  }

  /** Tells which row, if any, a claim of {@link #claimLimit} one took as the probe. */
  void claimed(List<? extends Claimed<?>> rows) {
    if (!active) {
      return;
    }
    lock.lock();
    try {
      if (probeRequested && !rows.isEmpty()) {
        probeRowId = rows.get(0).id();
      }
      probeRequested = false;
    } finally {
      lock.unlock();
    }
  }

  /**
   * The claims to try, in turn, for the probe of this outage, until one finds a row; null when
   * healthy. From the newest and the oldest end by turns (see {@link Probe}): one never attempted
   * and not probed yet in this outage, else one not probed yet, else (every due row failed a probe,
   * of the last {@value #PROBED_REMEMBERED}) any again.
   */
  List<Probe> probes() {
    if (!active) {
      return null;
    }
    List<Long> excluded;
    boolean oldest;
    lock.lock();
    try {
      if (!active) {
        return null;
      }
      excluded = List.copyOf(probed);
      oldest = failedProbes % 2 == 1;
    } finally {
      lock.unlock();
    }
    Probe fresh = new Probe(excluded, true, oldest);
    Probe notProbed = new Probe(excluded, false, oldest);
    return excluded.isEmpty()
        ? List.of(fresh, notProbed)
        : List.of(fresh, notProbed, new Probe(List.of(), false, oldest));
  }

  /**
   * True while no failure that may be evidence of an outage (a row's first) happened since the last
   * success: the lane's extra claims go on only then, so that rows they claim are not handed back,
   * and moved behind rows due later, when the failures turn out to be an outage. Rows failing again
   * cannot start one, so they do not stop the extra claims.
   */
  boolean succeeding() {
    return !active && !failuresSinceSuccess;
  }

  /** True while dispatch is paused for an outage. */
  boolean active() {
    return active;
  }

  Duration untilProbe() {
    return Duration.ofNanos(Math.max(1_000_000, nextProbeNanos - nanoTime.getAsLong()));
  }

  void succeeded() {
    if (!enabled || (!active && !failuresSinceSuccess)) {
      return;
    }
    Duration lasted;
    lock.lock();
    try {
      failedSinceSuccess.clear();
      failuresSinceSuccess = false;
      if (!active) {
        return;
      }
      active = false;
      probeRowId = -1;
      lasted = Duration.ofNanos(nanoTime.getAsLong() - startedNanos);
    } finally {
      lock.unlock();
    }
    log.info(
        "{} - {}: transport recovered after {} ms of outage",
        settings.instanceId(),
        table,
        lasted.toMillis());
    Listeners.call(() -> settings.listener().outageEnded(table, lasted));
  }

  /**
   * Records a failure; true if it counts as an attempt of the row, false during an outage. {@code
   * failedBefore}: an earlier attempt of the row failed, so this failure is no evidence of an
   * outage. The pause before the next probe grows only when the probe itself fails, not for
   * deliveries that were already running when the outage began.
   */
  boolean failedAndCounts(long rowId, boolean failedBefore) {
    if (!enabled) {
      return true;
    }
    lock.lock();
    try {
      long now = nanoTime.getAsLong();
      if (active) {
        if (rowId == probeRowId) {
          failedProbes++;
          probed.remove(rowId);
          probed.addLast(rowId);
          if (probed.size() > PROBED_REMEMBERED) {
            probed.removeFirst();
          }
          pauseNanos = Math.min(pauseNanos * 2, maxPauseNanos);
          nextProbeNanos = now + pauseNanos;
          probeRowId = -1;
        }
        return false;
      }
      if (failedBefore) {
        return true; // a row failing again is no evidence of an outage
      }
      failedSinceSuccess.add(rowId);
      failuresSinceSuccess = true;
      if (failedSinceSuccess.size() < THRESHOLD) {
        return true;
      }
      active = true;
      probed.clear();
      failedProbes = 0;
      startedNanos = now;
      pauseNanos = initialPauseNanos;
      nextProbeNanos = now + pauseNanos;
    } finally {
      lock.unlock();
    }
    log.warn(
        "{} - {}: {} different messages failed for the first time with no success between them;"
            + " treating it as a"
            + " transport outage: pausing dispatch and probing with one message, attempts are not"
            + " counted until one succeeds",
        settings.instanceId(),
        table,
        THRESHOLD);
    Listeners.call(() -> settings.listener().outageStarted(table));
    return false;
  }
}
