package dev.postbox;

import java.time.Duration;

/**
 * Counts of a Postbox table at one moment, read without claiming anything.
 *
 * <p>Immutable and thread-safe; a snapshot read on the caller's connection. Guide: {@code
 * docs/operations.md#stats}.
 *
 * @param pending rows not yet delivered (includes due, leased and blocked)
 * @param due pending rows whose time has come, not leased and not waiting behind a parked message
 *     of their key; on an outbox ordered by key a row also waits its turn behind the earlier rows
 *     of its key (being delivered, or waiting for a retry), which this count does not look at
 * @param leased pending rows held by a live lease
 * @param parked rows that ran out of attempts and wait for replay or discard
 * @param oldestPendingAge age of the oldest pending row by the database clock, {@link
 *     Duration#ZERO} if none
 * @param blockedKeys keys whose delivery waits for a parked message to be replayed or discarded (an
 *     outbox delivering in key order with {@link OrderedParking#BLOCK_KEY}); 0 otherwise
 * @param blocked pending rows whose time has come but that wait behind a parked message of their
 *     key, on those keys; they are not counted as due; 0 otherwise
 */
public record QueueStats(
    long pending,
    long due,
    long leased,
    long parked,
    Duration oldestPendingAge,
    long blockedKeys,
    long blocked) {

  /**
   * Stats with no row waiting behind a parked message: {@code blocked} is 0.
   *
   * @param pending rows not yet delivered (includes due and leased)
   * @param due pending rows that any instance may claim now
   * @param leased pending rows held by a live lease
   * @param parked rows that ran out of attempts and wait for replay or discard
   * @param oldestPendingAge age of the oldest pending row by the database clock, {@link
   *     Duration#ZERO} if none
   * @param blockedKeys keys whose delivery waits for a parked message
   */
  public QueueStats(
      long pending,
      long due,
      long leased,
      long parked,
      Duration oldestPendingAge,
      long blockedKeys) {
    this(pending, due, leased, parked, oldestPendingAge, blockedKeys, 0);
  }

  /**
   * Stats of a table where no key can be blocked: {@code blockedKeys} and {@code blocked} are 0.
   *
   * @param pending rows not yet delivered (includes due and leased)
   * @param due pending rows that any instance may claim now
   * @param leased pending rows held by a live lease
   * @param parked rows that ran out of attempts and wait for replay or discard
   * @param oldestPendingAge age of the oldest pending row by the database clock, {@link
   *     Duration#ZERO} if none
   */
  public QueueStats(long pending, long due, long leased, long parked, Duration oldestPendingAge) {
    this(pending, due, leased, parked, oldestPendingAge, 0, 0);
  }
}
