package dev.postbox;

import dev.postbox.internal.Require;
import dev.postbox.internal.recurring.ScheduleRule;
import dev.postbox.internal.schedule.CronParser;
import dev.postbox.internal.schedule.CronTicks;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Objects;

/**
 * When a recurring job runs: a cron expression in a time zone, a fixed delay after each run ends,
 * or a fixed rate. Immutable and thread-safe; validated when created, a bad expression throws an
 * {@link InvalidValueException} naming the field and what is wrong.
 *
 * <p>Cron expressions have five fields (minute hour day-of-month month day-of-week) or six with a
 * leading seconds field, read as Vixie cron reads them; daylight-saving changes, the macros and how
 * the day fields combine: {@code docs/jobs.md#recurring-jobs}.
 */
public final class Schedule {
  private static final Duration MIN_INTERVAL = Duration.ofSeconds(1);
  private static final Duration MAX_INTERVAL = Duration.ofDays(3650);
  private static final Instant PROBE_FROM = Instant.parse("2000-01-01T00:00:00Z");

  private enum Kind {
    CRON,
    EVERY,
    FIXED_RATE
  }

  private final Kind kind;
  private final String expression; // cron only
  private final ZoneId zone; // cron only
  private final CronTicks ticks; // cron only
  private final Duration interval; // every and fixed rate

  private Schedule(Kind kind, String expression, ZoneId zone, CronTicks ticks, Duration interval) {
    this.kind = kind;
    this.expression = expression;
    this.zone = zone;
    this.ticks = ticks;
    this.interval = interval;
  }

  /**
   * Ticks when the local time in {@code zone} matches the cron {@code expression}.
   *
   * @param expression the cron expression: five or six fields, or a macro such as {@code @daily}
   * @param zone the time zone the fields are read in
   * @return the schedule
   * @throws InvalidValueException if the expression is malformed (naming the field), can never
   *     match (such as {@code 0 0 30 2 *}), or the zone is null
   */
  public static Schedule cron(String expression, ZoneId zone) {
    Require.notNull("zone", zone);
    CronTicks ticks = new CronTicks(CronParser.parse(expression), zone);
    if (ticks.next(PROBE_FROM) == null) {
      throw new InvalidValueException(
          "cron", "\"" + expression + "\" matches no date (such as the 30th of February)");
    }
    return new Schedule(Kind.CRON, expression.strip(), zone, ticks, null);
  }

  /**
   * Ticks when the time in UTC matches the cron {@code expression}; see {@link #cron(String,
   * ZoneId)}.
   *
   * @param expression the cron expression: five or six fields, or a macro such as {@code @daily}
   * @return the schedule
   * @throws InvalidValueException if the expression is malformed (naming the field) or can never
   *     match
   */
  public static Schedule cron(String expression) {
    return cron(expression, ZoneOffset.UTC);
  }

  /**
   * Runs again {@code delay} (1 second to 3,650 days) after the previous run ended, whether it
   * succeeded or was parked; the first run is due when the schedule is first stored. A run whose
   * job row is gone before a dispatcher saw it end (deleted when done, cancelled or discarded) is
   * taken to have ended when a dispatcher declaring the schedule found it gone, within a poll
   * interval.
   *
   * @param delay the time between the end of one run and the next
   * @return the schedule
   * @throws InvalidValueException if the delay is null or out of range
   */
  public static Schedule every(Duration delay) {
    return new Schedule(
        Kind.EVERY, null, null, null, Require.between("every", delay, MIN_INTERVAL, MAX_INTERVAL));
  }

  /**
   * Ticks every {@code period} (1 second to 3,650 days) from the moment the schedule is first
   * stored, however long each run takes (a run still going when the next tick comes delays that
   * tick, as for every schedule).
   *
   * @param period the time between two ticks
   * @return the schedule
   * @throws InvalidValueException if the period is null or out of range
   */
  public static Schedule fixedRate(Duration period) {
    return new Schedule(
        Kind.FIXED_RATE,
        null,
        null,
        null,
        Require.between("fixedRate", period, MIN_INTERVAL, MAX_INTERVAL));
  }

  /**
   * For a cron schedule, the first tick strictly after {@code after}, or null if there is none; for
   * the others, {@code after} plus the interval (the tick after one at {@code after}, or the run
   * after one that ended at {@code after}).
   *
   * @param after the instant to start from
   * @return the next tick, or null if a cron schedule has none after {@code after}
   * @throws InvalidValueException if {@code after} is null
   */
  public Instant nextTick(Instant after) {
    Require.notNull("after", after);
    return ticks != null ? ticks.next(after) : after.plus(interval);
  }

  /**
   * This schedule as the recurring-job engine reads it ({@code dev.postbox.internal.recurring}):
   * the dispatcher hands it over with the declaration. Package-private, so not API.
   */
  ScheduleRule rule() {
    return new Rule();
  }

  /** This schedule's {@link #rule()}: its stored form and when it ticks. */
  private final class Rule implements ScheduleRule {
    @Override
    public String stored() {
      return Schedule.this.toString();
    }

    @Override
    public Instant nextTick(Instant after) {
      return Schedule.this.nextTick(after);
    }

    @Override
    public boolean fromRunEnd() {
      return kind == Kind.EVERY;
    }

    @Override
    public Instant first(Instant now) {
      return ticks != null ? ticks.next(now) : now;
    }

    @Override
    public Instant afterRun(Instant tick, Instant now) {
      return switch (kind) {
        case CRON -> ticks.next(now);
        // a stored next tick equal to the last tick is due at once and waits for the run to end,
        // so that each step looks at the run and sees its end (or its row gone) within a poll
        // interval, and then stores the end plus the delay
        case EVERY -> tick;
        case FIXED_RATE -> {
          long periods = Duration.between(tick, now).toNanos() / interval.toNanos() + 1;
          yield tick.plus(interval.multipliedBy(periods));
        }
      };
    }

    @Override
    public String toString() {
      return stored();
    }
  }

  /**
   * The schedule as stored with it, and compared at start to tell whether a schedule changed: for
   * example {@code cron 0 3 * * * Europe/Paris}, {@code every PT1H}, {@code fixedRate PT15M}.
   */
  @Override
  public String toString() {
    return switch (kind) {
      case CRON -> "cron " + expression + " " + zone.getId();
      case EVERY -> "every " + interval;
      case FIXED_RATE -> "fixedRate " + interval;
    };
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Schedule other && toString().equals(other.toString());
  }

  @Override
  public int hashCode() {
    return Objects.hash(toString());
  }
}
