package dev.postbox;

import java.time.Duration;

/**
 * Counts of a Postbox table at one moment, read without claiming anything.
 *
 * <p>Immutable and thread-safe; a snapshot read on the caller's connection.
 *
 * @param pending rows not yet delivered (includes due and leased)
 * @param due pending rows that any instance may claim now
 * @param leased pending rows held by a live lease
 * @param parked rows that ran out of attempts and wait for replay or discard
 * @param oldestPendingAge age of the oldest pending row by the database clock, {@link
 *     Duration#ZERO} if none
 * @param blockedKeys keys whose delivery waits for a parked message to be replayed or discarded (an
 *     outbox delivering in key order with {@link OrderedParking#BLOCK_KEY}); 0 otherwise
 */
public record QueueStats(
    long pending, long due, long leased, long parked, Duration oldestPendingAge, long blockedKeys) {

  /**
   * Stats of a table where no key can be blocked: {@code blockedKeys} is 0.
   *
   * @param pending rows not yet delivered (includes due and leased)
   * @param due pending rows that any instance may claim now
   * @param leased pending rows held by a live lease
   * @param parked rows that ran out of attempts and wait for replay or discard
   * @param oldestPendingAge age of the oldest pending row by the database clock, {@link
   *     Duration#ZERO} if none
   */
  public QueueStats(long pending, long due, long leased, long parked, Duration oldestPendingAge) {
    this(pending, due, leased, parked, oldestPendingAge, 0);
  }
}
