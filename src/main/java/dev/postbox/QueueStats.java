package dev.postbox;

import java.time.Duration;

/**
 * Counts of a Postbox table at one moment, read without claiming anything.
 *
 * @param pending rows not yet delivered (includes due and leased)
 * @param due pending rows that any instance may claim now
 * @param leased pending rows held by a live lease
 * @param parked rows that ran out of attempts and wait for replay or discard
 * @param oldestPendingAge age of the oldest pending row by the database clock, {@link
 *     Duration#ZERO} if none
 */
public record QueueStats(
    long pending, long due, long leased, long parked, Duration oldestPendingAge) {}
