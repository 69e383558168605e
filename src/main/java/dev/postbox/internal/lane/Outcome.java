package dev.postbox.internal.lane;

import dev.postbox.internal.sql.Claimed;
import java.time.Duration;

/**
 * What happened to one claimed row, waiting to be written by the {@link OutcomeWriter}.
 *
 * @param row the row
 * @param kind what to write
 * @param error the failure, for FAILED and PARKED
 * @param delay when to try again, for FAILED
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
    /** Failed for good: park with the error. */
    PARKED,
    /** Never started (or interrupted by shutdown): hand back at once, attempt not counted. */
    RELEASED
  }
}
