package dev.postbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.postbox.internal.recurring.ScheduleRule;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The cron grammar, Vixie cron's day rule, the DST rule, and the errors of bad expressions. */
class ScheduleTest {
  private static final ZoneId PARIS = ZoneId.of("Europe/Paris");
  private static final ZoneId NEW_YORK = ZoneId.of("America/New_York");
  private static final ZoneId LORD_HOWE = ZoneId.of("Australia/Lord_Howe");

  private static List<String> ticks(Schedule schedule, String from, int n) {
    List<String> ticks = new ArrayList<>();
    Instant t = OffsetDateTime.parse(from).toInstant();
    for (int i = 0; i < n; i++) {
      t = schedule.nextTick(t);
      ticks.add(t.toString());
    }
    return ticks;
  }

  @Test
  void fiveFieldsTickAtSecondZeroAndSixFieldsReadTheSecondsFirst() {
    assertEquals(
        List.of("2026-01-01T00:05:00Z", "2026-01-01T00:10:00Z"),
        ticks(Schedule.cron("*/5 * * * *"), "2026-01-01T00:00:00Z", 2));
    assertEquals(
        List.of("2026-01-01T00:00:15Z", "2026-01-01T00:00:45Z", "2026-01-01T00:01:15Z"),
        ticks(Schedule.cron("15,45 * * * * *"), "2026-01-01T00:00:00Z", 3));
  }

  @Test
  void namesRangesStepsAndSevenAsSunday() {
    // 2026-01-04 is a Sunday
    assertEquals(
        List.of("2026-01-04T09:00:00Z", "2026-01-10T09:00:00Z", "2026-01-11T09:00:00Z"),
        ticks(Schedule.cron("0 9 * * SAT-7"), "2026-01-03T10:00:00Z", 3));
    assertEquals(
        List.of("2026-03-02T08:30:00Z", "2026-03-02T10:30:00Z", "2026-03-02T12:30:00Z"),
        ticks(Schedule.cron("30 8-12/2 * mar,JUN mon-fri"), "2026-01-01T00:00:00Z", 3));
    assertEquals(
        List.of("2026-01-01T00:50:00Z", "2026-01-01T01:50:00Z"),
        ticks(Schedule.cron("50/20 * * * *"), "2026-01-01T00:00:00Z", 2));
  }

  @Test
  void aDayOfWeekStepCountsFromSundayAsInVixieCron() {
    // Sunday 4, Tuesday 6, Thursday 8 January 2026 (Spring counts from Monday here)
    assertEquals(
        List.of("2026-01-04T00:00:00Z", "2026-01-06T00:00:00Z", "2026-01-08T00:00:00Z"),
        ticks(Schedule.cron("0 0 * * */2"), "2026-01-03T12:00:00Z", 3));
    assertEquals(
        List.of("2026-01-04T00:00:00Z", "2026-01-11T00:00:00Z"),
        ticks(Schedule.cron("0 0 * * 7-7"), "2026-01-03T12:00:00Z", 2));
    assertEquals(
        List.of("2026-01-04T00:00:00Z", "2026-01-11T00:00:00Z"),
        ticks(Schedule.cron("0 0 * * SUN-SUN"), "2026-01-03T12:00:00Z", 2));
  }

  @Test
  void macrosAreTheirFields() {
    assertEquals(
        ticks(Schedule.cron("0 0 1 1 *"), "2026-05-01T00:00:00Z", 2),
        ticks(Schedule.cron("@yearly"), "2026-05-01T00:00:00Z", 2));
    assertEquals(
        ticks(Schedule.cron("0 0 * * 0"), "2026-05-01T00:00:00Z", 2),
        ticks(Schedule.cron("@WEEKLY"), "2026-05-01T00:00:00Z", 2));
    assertEquals(
        List.of("2026-05-01T01:00:00Z"),
        ticks(Schedule.cron("@hourly"), "2026-05-01T00:00:00Z", 1));
  }

  @Test
  void bothDayFieldsRestrictedMatchEitherAndAStarredDayFieldDoesNotRestrict() {
    // the 13th or a Friday: Fri 2 Jan, Fri 9 Jan, Tue 13 Jan, Fri 16 Jan
    assertEquals(
        List.of(
            "2026-01-02T00:00:00Z",
            "2026-01-09T00:00:00Z",
            "2026-01-13T00:00:00Z",
            "2026-01-16T00:00:00Z"),
        ticks(Schedule.cron("0 0 13 * FRI"), "2026-01-01T00:00:00Z", 4));
    // */2 starts with a star: only Mondays on odd days (5, 19 Jan; 9, 23 Feb)
    assertEquals(
        List.of("2026-01-05T00:00:00Z", "2026-01-19T00:00:00Z", "2026-02-09T00:00:00Z"),
        ticks(Schedule.cron("0 0 */2 * MON"), "2026-01-01T00:00:00Z", 3));
    // 1/2 does not: odd days or Mondays
    assertEquals(
        List.of(
            "2026-01-01T00:00:00Z",
            "2026-01-03T00:00:00Z",
            "2026-01-05T00:00:00Z",
            "2026-01-07T00:00:00Z",
            "2026-01-09T00:00:00Z",
            "2026-01-11T00:00:00Z",
            "2026-01-12T00:00:00Z"),
        ticks(Schedule.cron("0 0 1/2 * MON"), "2025-12-31T12:00:00Z", 7));
  }

  @Test
  void aLocalTimeInASpringForwardGapRunsOnceAtTheEndOfTheGap() {
    // Paris, 29 March 2026: 02:00 CET becomes 03:00 CEST
    assertEquals(
        List.of("2026-03-28T01:30:00Z", "2026-03-29T01:00:00Z", "2026-03-30T00:30:00Z"),
        ticks(Schedule.cron("30 2 * * *", PARIS), "2026-03-28T00:00:00Z", 3));
    // every 20 minutes: 02:00, 02:20 and 02:40 do not exist; one run at 03:00, then 03:20
    assertEquals(
        List.of("2026-03-29T00:40:00Z", "2026-03-29T01:00:00Z", "2026-03-29T01:20:00Z"),
        ticks(Schedule.cron("*/20 * * * *", PARIS), "2026-03-29T00:30:00Z", 3));
    // New York, 8 March 2026: 02:00 EST becomes 03:00 EDT
    assertEquals(
        List.of("2026-03-08T07:00:00Z", "2026-03-09T06:15:00Z"),
        ticks(Schedule.cron("15 2 * * *", NEW_YORK), "2026-03-08T05:00:00Z", 2));
    // Lord Howe, 4 October 2026: a 30-minute gap, 02:00 +10:30 becomes 02:30 +11:00
    assertEquals(
        List.of("2026-10-03T15:30:00Z", "2026-10-04T15:15:00Z", "2026-10-05T15:15:00Z"),
        ticks(Schedule.cron("15 2 * * *", LORD_HOWE), "2026-10-03T00:00:00Z", 3));
  }

  @Test
  void aLocalTimeThatOccursTwiceRunsOnceTheFirstTime() {
    // Paris, 25 October 2026: 03:00 CEST becomes 02:00 CET; 02:30 happens twice
    assertEquals(
        List.of("2026-10-24T00:30:00Z", "2026-10-25T00:30:00Z", "2026-10-26T01:30:00Z"),
        ticks(Schedule.cron("30 2 * * *", PARIS), "2026-10-23T12:00:00Z", 3));
    // every 20 minutes through the repeated hour: its second pass does not run again
    assertEquals(
        List.of(
            "2026-10-25T00:00:00Z",
            "2026-10-25T00:20:00Z",
            "2026-10-25T00:40:00Z",
            "2026-10-25T02:00:00Z"),
        ticks(Schedule.cron("*/20 * * * *", PARIS), "2026-10-24T23:50:00Z", 4));
    // asked from inside the second pass, the next tick is the first local time after it
    assertEquals(
        List.of("2026-10-25T02:00:00Z"),
        ticks(Schedule.cron("*/20 * * * *", PARIS), "2026-10-25T01:10:00Z", 1));
  }

  @Test
  void everyAndFixedRateAddTheirInterval() {
    Instant t = Instant.parse("2026-01-01T00:00:00Z");
    assertEquals(t.plusSeconds(90), Schedule.every(Duration.ofSeconds(90)).nextTick(t));
    assertEquals(t.plusSeconds(3600), Schedule.fixedRate(Duration.ofHours(1)).nextTick(t));
    assertEquals("every PT1M30S", Schedule.every(Duration.ofSeconds(90)).toString());
    assertEquals("cron 0 3 * * * Europe/Paris", Schedule.cron(" 0 3 * * * ", PARIS).toString());
  }

  @Test
  void afterARunTheNextTickSkipsTheTicksMissedMeanwhile() {
    Instant tick = Instant.parse("2026-01-01T00:00:00Z");
    Instant late = Instant.parse("2026-01-01T00:03:30Z");
    assertEquals(
        Instant.parse("2026-01-01T00:04:00Z"),
        Schedule.fixedRate(Duration.ofMinutes(1)).rule().afterRun(tick, late));
    assertEquals(
        Instant.parse("2026-01-01T00:01:00Z"),
        Schedule.fixedRate(Duration.ofMinutes(1)).rule().afterRun(tick, tick));
    assertEquals(
        Instant.parse("2026-01-01T01:00:00Z"),
        Schedule.cron("0 * * * *").rule().afterRun(tick, late));
    // every: the run's own tick, which waits for the run's end (the next is timed from it)
    assertEquals(tick, Schedule.every(Duration.ofMinutes(1)).rule().afterRun(tick, late));
    assertEquals(late, Schedule.every(Duration.ofMinutes(1)).rule().first(late));
    assertEquals(
        Instant.parse("2026-01-01T01:00:00Z"), Schedule.cron("0 * * * *").rule().first(late));
  }

  @Test
  void theRuleTheEngineReadsIsTheSchedulesOwn() {
    Instant late = Instant.parse("2026-01-01T00:03:30Z");
    for (Schedule s :
        List.of(
            Schedule.cron("0 * * * *", PARIS),
            Schedule.every(Duration.ofMinutes(1)),
            Schedule.fixedRate(Duration.ofMinutes(1)))) {
      ScheduleRule rule = s.rule();
      assertEquals(s.toString(), rule.stored());
      assertEquals(s.nextTick(late), rule.nextTick(late));
      assertEquals(s.toString().startsWith("every"), rule.fromRunEnd());
    }
  }

  @Test
  void leapDaysAreFoundYearsAhead() {
    assertEquals(
        List.of("2028-02-29T00:00:00Z", "2032-02-29T00:00:00Z"),
        ticks(Schedule.cron("0 0 29 2 *"), "2026-03-01T00:00:00Z", 2));
  }

  @Test
  void badExpressionsNameTheFieldAndWhatIsWrong() {
    assertInvalid("cron minute", "value 60 is out of range 0-59", "60 * * * *");
    assertInvalid("cron hour", "range 5-2 runs backwards", "0 5-2 * * *");
    assertInvalid("cron day-of-month", "value 0 is out of range 1-31", "0 0 0 * *");
    assertInvalid("cron month", "\"JANUARY\" is not a number or name", "0 0 1 JANUARY *");
    assertInvalid("cron day-of-week", "step 0 must be between 1 and 7", "0 0 * * */0");
    assertInvalid("cron second", "has an empty list element", "1,,2 0 0 * * *");
    assertInvalid("cron", "must have 5 fields", "0 0 * *");
    assertInvalid("cron", "macro @reboot is not supported", "@reboot");
    assertInvalid("cron", "matches no date", "0 0 30 2 *");
    assertInvalid("cron", "must not be empty", " ");
    assertInvalid("cron hour", "value \"?\" is not a number or name", "0 ? * * *");
    assertThrows(InvalidValueException.class, () -> Schedule.cron("0 0 * * *", null));
    assertInvalid("every", "must be between PT1S and PT87600H but was PT0.5S", null);
  }

  private static void assertInvalid(String field, String problem, String expression) {
    InvalidValueException e =
        assertThrows(
            InvalidValueException.class,
            () -> {
              if (expression == null) {
                Schedule.every(Duration.ofMillis(500));
              } else {
                Schedule.cron(expression);
              }
            });
    assertEquals(field, e.field());
    if (!e.getMessage().contains(problem)) {
      throw new AssertionError("expected \"" + problem + "\" in: " + e.getMessage());
    }
  }

  @Test
  void theSearchReachesTheLeapDayAfterACenturyThatHasNone() {
    // 2100 is no leap year: from 2096-03-01 the next 29 February is in 2104
    assertEquals(
        Instant.parse("2104-02-29T00:00:00Z"),
        Schedule.cron("0 0 29 2 *").nextTick(Instant.parse("2096-03-01T00:00:00Z")));
  }
}
