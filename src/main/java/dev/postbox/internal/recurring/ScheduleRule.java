package dev.postbox.internal.recurring;

import java.time.Instant;

/**
 * A schedule as the engine reads it: its stored form and when it ticks. The API's {@code Schedule}
 * hands one to the dispatcher that declares it (a package-private method, so the API gains
 * nothing). Immutable and thread-safe.
 */
public interface ScheduleRule {
  /**
   * The schedule as stored in its row and compared at start to tell whether it changed, for example
   * {@code cron 0 3 * * * Europe/Paris}, {@code every PT1H}.
   */
  String stored();

  /**
   * A cron's first tick strictly after {@code after} (null if none); for the others, {@code after}
   * plus the interval.
   */
  Instant nextTick(Instant after);

  /** Whether the next run is timed from the end of the previous one ({@code every}). */
  boolean fromRunEnd();

  /** The first tick of a schedule stored at {@code now}: a cron's next, else {@code now}. */
  Instant first(Instant now);

  /**
   * The tick stored after a run for {@code tick} was enqueued at {@code now}, the ticks missed
   * meanwhile skipped; for {@code every}, {@code tick} itself, which waits for the run's end.
   */
  Instant afterRun(Instant tick, Instant now);
}
