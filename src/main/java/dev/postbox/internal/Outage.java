package dev.postbox.internal;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells a broker outage from poison messages: once {@value #THRESHOLD} different rows have failed
 * with no success in between, the lane stops claiming, failures stop counting against the rows, and
 * one row at a time is sent as a probe, with growing pauses, until one succeeds. One row failing
 * again and again is poison, not an outage: it is counted and parked.
 */
final class Outage {
  private static final Logger log = LoggerFactory.getLogger(Outage.class);
  static final int THRESHOLD = 3;

  private final boolean enabled;
  private final String table;
  private final LaneSettings settings;
  private final long initialPauseNanos;
  private final long maxPauseNanos;
  private final Set<Long> failedSinceSuccess = ConcurrentHashMap.newKeySet();
  private volatile long startedNanos;
  private volatile boolean active;
  private volatile long pauseNanos;
  private volatile long nextProbeNanos;

  Outage(LaneSettings settings, String table) {
    this.enabled = settings.detectOutage();
    this.settings = settings;
    this.table = table;
    this.initialPauseNanos = settings.pollInterval().toNanos();
    this.maxPauseNanos = Math.max(Duration.ofSeconds(30).toNanos(), initialPauseNanos);
  }

  /** How many rows to claim now: all of a batch when healthy, one probe at a time in an outage. */
  int claimLimit(int batchSize, int running) {
    if (!active) {
      return batchSize;
    }
    return running == 0 && System.nanoTime() >= nextProbeNanos ? 1 : 0;
  }

  Duration untilProbe() {
    return Duration.ofNanos(Math.max(1_000_000, nextProbeNanos - System.nanoTime()));
  }

  void succeeded() {
    failedSinceSuccess.clear();
    if (active) {
      active = false;
      Duration lasted = Duration.ofNanos(System.nanoTime() - startedNanos);
      log.info(
          "{} - {}: transport recovered after {} ms of outage",
          settings.instanceId(),
          table,
          lasted.toMillis());
      Listeners.call(() -> settings.listener().outageEnded(table, lasted));
    }
  }

  /** Records a failure; true if it counts as an attempt of the row, false during an outage. */
  boolean failedAndCounts(long rowId) {
    if (!enabled) {
      return true;
    }
    long now = System.nanoTime();
    if (active) {
      pauseNanos = Math.min(pauseNanos * 2, maxPauseNanos);
      nextProbeNanos = now + pauseNanos;
      return false;
    }
    failedSinceSuccess.add(rowId);
    if (failedSinceSuccess.size() < THRESHOLD) {
      return true;
    }
    active = true;
    startedNanos = now;
    pauseNanos = initialPauseNanos;
    nextProbeNanos = now + pauseNanos;
    log.warn(
        "{} - {}: {} different messages failed with no success between them; treating it as a transport outage: pausing dispatch"
            + " and probing with one message, attempts are not counted until one succeeds",
        settings.instanceId(),
        table,
        THRESHOLD);
    Listeners.call(() -> settings.listener().outageStarted(table));
    return false;
  }
}
