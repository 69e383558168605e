package dev.postbox.internal.sql;

import java.time.Instant;

/**
 * A row this instance holds a lease on.
 *
 * @param id primary key
 * @param attempt this attempt's number: the attempts before the claim, plus one
 * @param claims the row's claim count after this claim incremented it: with {@code leased_by} it
 *     fences this claim's outcome, since unlike {@code attempts} it never goes back
 * @param maxAttempts the row's own limit, or 0 to use the dispatcher's
 * @param ref event id or job id, for logs
 * @param topic topic or job name, for logs
 * @param item what the deliverer receives; null if the row could not be read
 * @param defect why the row could not be read (it is parked, never delivered); null if it could
 * @param key the key whose order the row keeps; null if its table is not ordered by key or the row
 *     has none
 * @param due when the row was due before this claim leased it, so that a hand-back puts it back in
 *     its turn; null where the claim cannot return it (SQLite: hand-backs are due at once)
 * @param failedBefore true if the row has a {@code last_error}: an earlier attempt failed and was
 *     counted, or it was parked and replayed (outage refunds leave {@code last_error} as it was);
 *     false for a row whose earlier attempts, if any, ended with no outcome (a crash, a lost
 *     lease), so that its failure is as much evidence of an outage as a first attempt's
 * @param charged true if the claim counted this attempt in the row's {@code attempts} (so that a
 *     crash mid-delivery counts); false for a row of a run behind its key's head, which is handed
 *     to the transport only after the rows before it went through, and whose attempt is counted
 *     only by its outcome: a head that crashes its sender spends its own attempts, not theirs
 */
public record Claimed<T>(
    long id,
    int attempt,
    int claims,
    int maxAttempts,
    String ref,
    String topic,
    T item,
    String defect,
    String key,
    Instant due,
    boolean failedBefore,
    boolean charged) {

  public Claimed(
      long id, int attempt, int claims, int maxAttempts, String ref, String topic, T item) {
    this(id, attempt, claims, maxAttempts, ref, topic, item, null, null, null, false, true);
  }

  /**
   * This row as its claim found it: keeping the order of {@code key}, due at {@code due}, its
   * attempt counted by the claim if {@code charged}.
   */
  Claimed<T> as(String key, Instant due, boolean failedBefore, boolean charged) {
    return new Claimed<>(
        id,
        attempt,
        claims,
        maxAttempts,
        ref,
        topic,
        item,
        defect,
        key,
        due,
        failedBefore,
        charged);
  }

  /** A claimed row whose columns could not be turned into an item. */
  static <T> Claimed<T> unreadable(long id, int attempt, int claims, String problem) {
    return new Claimed<>(
        id,
        attempt,
        claims,
        0,
        Long.toString(id),
        "?",
        null,
        "row could not be read: " + problem,
        null,
        null,
        false,
        true);
  }
}
