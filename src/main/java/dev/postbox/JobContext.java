package dev.postbox;

import java.time.Instant;

/**
 * One run of a durable job, as its handler sees it: which job, which attempt, and since when it was
 * due.
 *
 * <p>Immutable and thread-safe. The dispatcher builds one per attempt; tests of a handler can build
 * their own. Guide: {@code docs/jobs.md#the-job-context}.
 *
 * @param id the job's id (see {@link Jobs#idOf})
 * @param name the job's name, the handler's {@link JobHandler#name()}
 * @param payload the job's payload
 * @param attempt this attempt, 1 for the first run; a run cut short by a crash counts
 * @param maxAttempts the attempts the job gets before it is parked
 * @param dedupeKey the job's dedupe key, or null if it has none
 * @param tick for a run of a recurring job, the tick it stands for (after ticks were missed, the
 *     first of them); null for other jobs
 * @param dueAt when this attempt became due by the database clock: the enqueue time plus the job's
 *     delay for the first attempt, the end of the backoff for a retry (for an attempt that follows
 *     a crashed one, the time the crashed one's lease ran out); for a job that waited for admission
 *     (a group or a limited name), the time it was admitted, or a second before it
 */
public record JobContext(
    long id,
    String name,
    String payload,
    int attempt,
    int maxAttempts,
    String dedupeKey,
    Instant tick,
    Instant dueAt) {

  /**
   * {@return whether this is the job's last attempt ({@code attempt} has reached {@code
   * maxAttempts}): if it fails, the job is parked}
   */
  public boolean lastAttempt() {
    return attempt >= maxAttempts;
  }
}
