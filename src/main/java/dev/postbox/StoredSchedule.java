package dev.postbox;

import java.time.Instant;

/**
 * A recurring job's schedule as stored in the schedules table, as {@link Jobs#schedules} lists it:
 * what it is, when it runs next, and how its last run went.
 *
 * <p>Immutable and thread-safe; a snapshot read in the caller's transaction. Guide: {@code
 * docs/jobs.md#recurring-jobs}.
 *
 * @param name the job name of its runs
 * @param schedule the schedule as declared, for example {@code cron 0 3 * * * Europe/Paris}
 * @param payload the payload of each run
 * @param nextTick when the next run is due by the database clock (a run still unfinished then
 *     delays it; a schedule no running dispatcher declares does not run); for {@link
 *     Schedule#every}, while its last run has not ended, that run's tick: the next is known once it
 *     ends
 * @param lastTick the tick of the last run enqueued, or null if none was
 * @param lastRunId the job id of that run, or null
 * @param lastRun how that run stands now
 */
public record StoredSchedule(
    String name,
    String schedule,
    String payload,
    Instant nextTick,
    Instant lastTick,
    Long lastRunId,
    LastRun lastRun) {

  /** How the last run of a schedule stands. */
  public enum LastRun {
    /** No run was enqueued yet. */
    NONE,
    /** Waiting to start. */
    PENDING,
    /** Running now (its lease is held). */
    RUNNING,
    /** Failed, waiting for its retry's backoff. */
    RETRYING,
    /** Succeeded (kept for the job queue's retention). */
    SUCCEEDED,
    /** Failed its last attempt and was parked. */
    PARKED,
    /** Its job row is gone: it succeeded and was deleted, or was cancelled or discarded. */
    GONE
  }
}
