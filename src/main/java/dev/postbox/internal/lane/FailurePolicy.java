package dev.postbox.internal.lane;

import dev.postbox.PostboxException;
import dev.postbox.RejectedMessageException;
import dev.postbox.RetryLater;
import dev.postbox.internal.jdbc.Text;
import dev.postbox.internal.sql.Claimed;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a failed delivery comes to: handed back (interrupted by shutdown), snoozed (a {@link
 * RetryLater}, which may come wrapped in another exception), parked now ({@link ParkNow}, or a
 * permanent {@link RejectedMessageException}), refunded (failed during an {@link Outage}), parked
 * (out of attempts), or retried after the backoff. Thread-safe; called on delivery threads.
 */
final class FailurePolicy {
  private static final Logger log = LoggerFactory.getLogger(FailurePolicy.class);
  private static final Duration MAX_DELAY = Duration.ofDays(365);

  private final LaneSettings settings;
  private final Outage outage;
  private final String name;
  private final BooleanSupplier stopping;

  FailurePolicy(LaneSettings settings, Outage outage, String name, BooleanSupplier stopping) {
    this.settings = settings;
    this.outage = outage;
    this.name = name;
    this.stopping = stopping;
  }

  /**
   * The outcome of a failed delivery of {@code row}; {@code outageEvidence} false if the transport
   * sent other rows at the same time, so the failure cannot mean the broker is down.
   */
  Outcome failure(Claimed<?> row, Throwable e, long elapsed, boolean outageEvidence) {
    try {
      if (stopping.getAsBoolean() && interrupted(e)) {
        return new Outcome(row, Outcome.Kind.RELEASED, e, Duration.ZERO, elapsed);
      }
      RetryLater later = retryLater(e);
      if (later != null) {
        return new Outcome(row, Outcome.Kind.SNOOZED, later, later.delay(), elapsed);
      }
      if (e instanceof ParkNow || e instanceof RejectedMessageException r && r.isPermanent()) {
        return new Outcome(row, Outcome.Kind.PARKED, e, Duration.ZERO, elapsed);
      }
      if (outageEvidence
          && !(e instanceof RejectedMessageException)
          && !outage.failedAndCounts(row.id(), row.attempt() > 1 && row.failedBefore())) {
        return new Outcome(row, Outcome.Kind.REFUNDED, e, outage.untilProbe(), elapsed);
      }
      if (row.attempt() >= maxAttempts(row)) {
        return new Outcome(row, Outcome.Kind.PARKED, e, Duration.ZERO, elapsed);
      }
      Duration delay = backoff(row.attempt());
      if (log.isDebugEnabled()) {
        // the text last_error gets: class and message, control characters made spaces, truncated
        log.debug(
            "{} - attempt {} of id={} ref={} topic={} failed, retrying in {} ms: {}",
            name,
            row.attempt(),
            row.id(),
            row.ref(),
            row.topic(),
            delay.toMillis(),
            Text.errorOf(e));
      }
      return new Outcome(row, Outcome.Kind.FAILED, e, delay, elapsed);
    } catch (RuntimeException bug) {
      e.addSuppressed(bug);
      return new Outcome(row, Outcome.Kind.FAILED, e, Duration.ofSeconds(1), elapsed);
    }
  }

  /**
   * The outcome of a claimed row that must not be delivered, or null if it may: unreadable, or
   * claimed more often than allowed without an outcome (the instance died or lost its lease
   * mid-delivery each time, so delivering again may crash this one too).
   */
  Outcome refuse(Claimed<?> row, boolean unreadableToo) {
    if (unreadableToo && row.defect() != null) {
      return new Outcome(row, Outcome.Kind.PARKED, new ParkNow(row.defect()), Duration.ZERO, 0);
    }
    int max = maxAttempts(row);
    if (row.attempt() > max) {
      return new Outcome(
          row,
          Outcome.Kind.PARKED,
          new ParkNow(
              "claimed "
                  + row.attempt()
                  + " times without a recorded outcome (crashes or lost leases), maxAttempts "
                  + max),
          Duration.ZERO,
          0);
    }
    return null;
  }

  /** The outcome of a delivery that ended without one (a bug): retried in a second. */
  static Outcome none(Claimed<?> row, long elapsed) {
    return new Outcome(
        row,
        Outcome.Kind.FAILED,
        new IllegalStateException("no outcome"),
        Duration.ofSeconds(1),
        elapsed);
  }

  /**
   * What a {@code snoozed} row comes to when it was snoozed {@link RetryLater#MAX_SNOOZES} times
   * already: a failed attempt, retried after the delay its snooze asked for, or parked if it was
   * the last.
   */
  static Outcome snoozedTooOften(Outcome snoozed, LaneSettings settings) {
    Claimed<?> row = snoozed.row();
    PostboxException counted =
        new PostboxException(
            "snoozed "
                + RetryLater.MAX_SNOOZES
                + " times, so this snooze counts as an attempt: "
                + snoozed.error().getMessage(),
            snoozed.error());
    boolean last = row.attempt() >= maxAttempts(row, settings);
    return new Outcome(
        row,
        last ? Outcome.Kind.PARKED : Outcome.Kind.FAILED,
        counted,
        last ? Duration.ZERO : snoozed.delay(),
        snoozed.elapsedNanos());
  }

  private int maxAttempts(Claimed<?> row) {
    return maxAttempts(row, settings);
  }

  private static int maxAttempts(Claimed<?> row, LaneSettings settings) {
    return row.maxAttempts() > 0 ? row.maxAttempts() : settings.maxAttempts();
  }

  /** The {@link RetryLater} {@code e} is or was caused by, or null. */
  private static RetryLater retryLater(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof RetryLater r) {
        return r;
      }
    }
    return null;
  }

  /** The user's backoff, kept within what every database's timestamps can hold. */
  private Duration backoff(int attempt) {
    Duration delay = null;
    try {
      delay = settings.backoff().delay(attempt);
    } catch (RuntimeException e) {
      log.warn("{} - backoff threw for attempt {}; retrying in 1 s", name, attempt, e);
    }
    if (delay == null || delay.isNegative()) {
      return Duration.ofSeconds(1);
    }
    return delay.compareTo(MAX_DELAY) > 0 ? MAX_DELAY : delay;
  }

  private static boolean interrupted(Throwable e) {
    if (Thread.currentThread().isInterrupted()) {
      return true;
    }
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof InterruptedException) {
        return true;
      }
    }
    return false;
  }
}
