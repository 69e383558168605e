package dev.postbox;

import java.time.Instant;

/**
 * The pending jobs of one job name at one moment, as {@link Jobs#statsByName} reads them.
 *
 * <p>Immutable and thread-safe; a snapshot read on the caller's connection. Guide: {@code
 * docs/jobs.md#rolling-deploys-and-new-job-types}, {@code docs/jobs.md#flow-control}.
 *
 * @param name the job name
 * @param pending jobs of the name not finished and not parked (includes due and leased)
 * @param due pending jobs whose time has come and that no live lease holds: they wait for a
 *     dispatcher with a handler for the name (one that has none never claims them) and a free slot;
 *     0 while the name is paused
 * @param leased pending jobs held by a live lease (running, or claimed and about to run)
 * @param oldestDueAt since when the oldest due job has been due, by the database clock; null if
 *     none is due or the name is paused
 * @param paused whether the name is paused ({@link Jobs#pause}): its jobs wait, not due, until it
 *     is resumed; a paused name is listed also without pending jobs
 * @param limit the most jobs of the name running at once ({@link Jobs.Builder#limit}) as the {@code
 *     Jobs} that read the stats declares it, 0 for none; compare it with {@code leased}
 */
public record JobNameStats(
    String name,
    long pending,
    long due,
    long leased,
    Instant oldestDueAt,
    boolean paused,
    int limit) {}
