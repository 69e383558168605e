package dev.postbox.internal.lane;

import dev.postbox.internal.sql.Claimed;
import java.time.Duration;

/**
 * What happened to one claimed row, waiting to be written by the {@link OutcomeWriter}.
 *
 * @param row the row
 * @param kind what to write
 * @param error the failure, for FAILED and PARKED; the {@link dev.postbox.RetryLater}, for SNOOZED
 * @param delay when to try again, for FAILED, REFUNDED and SNOOZED
 * @param elapsedNanos how long the delivery took (a long, not a Duration: one object less per row)
 */
record Outcome(Claimed<?> row, Kind kind, Throwable error, Duration delay, long elapsedNanos) {
  enum Kind {
    /** Delivered: delete the row, or mark it done. */
    SUCCEEDED,
    /** Failed: count the attempt and retry after {@code delay}. */
    FAILED,
    /** Failed during an outage: retry after {@code delay} without counting the attempt. */
    REFUNDED,
    /**
     * Put off by a {@link dev.postbox.RetryLater}: due again after {@code delay}, the attempt not
     * counted, unless the row was snoozed {@link dev.postbox.RetryLater#MAX_SNOOZES} times already
     * (then it counts, as FAILED or, after the last attempt, PARKED).
     */
    SNOOZED,
    /** Failed for good: park with the error. */
    PARKED,
    /** Never started (or interrupted by shutdown): hand back at once, attempt not counted. */
    RELEASED
  }
}
