package dev.postbox.internal.schedule;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postbox.InvalidValueException;
import dev.postbox.Schedule;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.zone.ZoneOffsetTransition;
import java.time.zone.ZoneRules;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.springframework.scheduling.support.CronExpression;

/**
 * Postbox's cron against an independent implementation, Spring's {@link CronExpression}, for
 * thousands of generated expressions over years in several zones.
 *
 * <p>Two differences are by design and excluded from the comparison, each proven on its own:
 *
 * <ul>
 *   <li>Spring ANDs a restricted day of month with a restricted day of week; Postbox ORs them, as
 *       Vixie cron does. Where both are restricted, the reference is the merge of Spring's ticks
 *       for the expression with the day of week made {@code *} and with the day of month made
 *       {@code *}.
 *   <li>Around a daylight-saving change Spring skips local times that do not exist and runs local
 *       times that occur twice twice; Postbox runs the first once at the end of the gap and the
 *       second once, the first time. Ticks within one transition's length of a transition are left
 *       out of the comparison and checked against a brute-force enumeration of local times instead.
 *   <li>Spring counts the day of week 1-7 from Monday: a step from {@code *} or 0 starts on Monday
 *       there (on Sunday in Vixie cron), and {@code 7-7} or {@code SUN-SUN} matches every day. The
 *       generator leaves those forms out; {@code ScheduleTest} asserts Postbox's meaning.
 * </ul>
 */
class CronComparisonTest {
  private static final List<ZoneId> ZONES =
      List.of(
          ZoneOffset.UTC,
          ZoneId.of("Europe/Paris"),
          ZoneId.of("America/New_York"),
          ZoneId.of("Australia/Lord_Howe"),
          ZoneId.of("Asia/Kolkata"));
  private static final Instant FROM = Instant.parse("2024-01-01T00:00:00Z");
  private static final int MAX_TICKS = 150;
  private static final Duration HORIZON = Duration.ofDays(3 * 366);

  @Test
  void ticksMatchSpringsCronExpressionAwayFromDaylightSavingChanges() {
    Random random = new Random(20261204L);
    int compared = 0;
    int ticks = 0;
    for (int i = 0; i < 1_500; i++) {
      String expression = CronGenerator.expression(random);
      for (ZoneId zone : ZONES) {
        Instant start = FROM.plusSeconds(random.nextLong(8L * 365 * 86_400));
        ticks += compare(expression, zone, start);
        compared++;
      }
    }
    assertEquals(7_500, compared);
    assertTrue(ticks > 200_000, "compared too few ticks to mean much: " + ticks);
  }

  /** Compares the ticks of one expression from {@code start}; returns how many it compared. */
  private static int compare(String expression, ZoneId zone, Instant start) {
    String at = expression + " in " + zone + " from " + start;
    Schedule schedule;
    try {
      schedule = Schedule.cron(expression, zone);
    } catch (InvalidValueException e) { // matches no date: nor must Spring's
      assertTrue(e.getMessage().contains("matches no date"), at + ": " + e.getMessage());
      assertNull(spring(expression).next(ZonedDateTime.ofInstant(start, zone)), at);
      return 0;
    }
    Instant end = start.plus(HORIZON);
    List<Instant> ours = ticks(schedule::nextTick, start, end);
    List<Instant> theirs = reference(expression, zone, start, end);
    Instant horizon = end;
    if (ours.size() == MAX_TICKS) {
      horizon = min(horizon, ours.getLast());
    }
    if (theirs.size() >= MAX_TICKS) {
      horizon = min(horizon, theirs.get(MAX_TICKS - 1));
    }
    Predicate<Instant> compared = awayFromChanges(zone, start, horizon);
    List<Instant> a = ours.stream().filter(compared).toList();
    List<Instant> b = theirs.stream().filter(compared).toList();
    assertEquals(b, a, at);
    return a.size();
  }

  /** Spring's ticks, merged from two expressions where both day fields are restricted. */
  private static List<Instant> reference(
      String expression, ZoneId zone, Instant start, Instant end) {
    String[] f = sixFields(expression).split(" ");
    boolean domRestricted = !f[3].startsWith("*") && !f[3].equals("?");
    boolean dowRestricted = !f[5].startsWith("*") && !f[5].equals("?");
    if (!(domRestricted && dowRestricted)) {
      return springTicks(sixFields(expression), zone, start, end);
    }
    String byDay = String.join(" ", f[0], f[1], f[2], f[3], f[4], "*");
    String byWeekday = String.join(" ", f[0], f[1], f[2], "*", f[4], f[5]);
    TreeSet<Instant> merged = new TreeSet<>(springTicks(byDay, zone, start, end));
    merged.addAll(springTicks(byWeekday, zone, start, end));
    return new ArrayList<>(merged).subList(0, Math.min(merged.size(), MAX_TICKS));
  }

  private static List<Instant> springTicks(String six, ZoneId zone, Instant start, Instant end) {
    CronExpression cron = spring(six);
    return ticks(
        t -> {
          ZonedDateTime next = cron.next(ZonedDateTime.ofInstant(t, zone));
          return next == null ? null : next.toInstant();
        },
        start,
        end);
  }

  private static CronExpression spring(String expression) {
    return CronExpression.parse(sixFields(expression));
  }

  private static String sixFields(String expression) {
    String[] fields = expression.trim().split("\\s+");
    return fields.length == 5 ? "0 " + expression.trim() : expression.trim();
  }

  private interface Next {
    Instant after(Instant t);
  }

  private static List<Instant> ticks(Next next, Instant start, Instant end) {
    List<Instant> ticks = new ArrayList<>();
    Instant t = next.after(start);
    while (t != null && t.isBefore(end) && ticks.size() < MAX_TICKS) {
      ticks.add(t);
      t = next.after(t);
    }
    return ticks;
  }

  /** Instants before {@code horizon} and not within a transition's length of one in zone. */
  private static Predicate<Instant> awayFromChanges(ZoneId zone, Instant start, Instant horizon) {
    List<Instant[]> windows = new ArrayList<>();
    ZoneRules rules = zone.getRules();
    ZoneOffsetTransition tr = rules.nextTransition(start.minusSeconds(86_400));
    while (tr != null && tr.getInstant().isBefore(horizon.plusSeconds(86_400))) {
      Duration d = tr.getDuration().abs();
      windows.add(new Instant[] {tr.getInstant().minus(d), tr.getInstant().plus(d)});
      tr = rules.nextTransition(tr.getInstant());
    }
    return t -> {
      if (!t.isBefore(horizon) && !t.equals(horizon)) {
        return false;
      }
      for (Instant[] w : windows) {
        if (!t.isBefore(w[0]) && !t.isAfter(w[1])) {
          return false;
        }
      }
      return true;
    };
  }

  private static Instant min(Instant a, Instant b) {
    return a.isBefore(b) ? a : b;
  }

  @Test
  void aroundEveryDaylightSavingChangeTicksAreTheFirstInstantOfEachMatchingLocalTime() {
    Random random = new Random(42L);
    int transitions = 0;
    int ticks = 0;
    for (ZoneId zone :
        List.of(
            ZoneId.of("Europe/Paris"),
            ZoneId.of("America/New_York"),
            ZoneId.of("Australia/Lord_Howe"))) {
      ZoneRules rules = zone.getRules();
      ZoneOffsetTransition tr = rules.nextTransition(FROM);
      while (tr.getInstant().isBefore(Instant.parse("2032-01-01T00:00:00Z"))) {
        for (int i = 0; i < 25; i++) {
          ticks += checkAround(CronGenerator.nearTransition(random, tr), zone, tr);
        }
        transitions++;
        tr = rules.nextTransition(tr.getInstant());
      }
    }
    assertEquals(48, transitions);
    assertTrue(ticks > 5_000, "checked too few ticks to mean much: " + ticks);
  }

  /**
   * Every local time around {@code tr} that matches, mapped by the rule (the end of a gap; the
   * first of two occurrences), is a tick, and nothing else is.
   */
  private static int checkAround(String expression, ZoneId zone, ZoneOffsetTransition tr) {
    CronFields fields = CronParser.parse(expression);
    Instant from = tr.getInstant().minus(Duration.ofHours(2));
    Instant to = tr.getInstant().plus(Duration.ofHours(2));
    TreeSet<Instant> expected = new TreeSet<>();
    LocalDateTime local = LocalDateTime.ofInstant(from, zone).minusHours(1);
    LocalDateTime last = LocalDateTime.ofInstant(to, zone).plusHours(1);
    ZoneRules rules = zone.getRules();
    for (; !local.isAfter(last); local = local.plusSeconds(1)) {
      if (fields.matches(local)) {
        List<ZoneOffset> offsets = rules.getValidOffsets(local);
        Instant tick =
            offsets.isEmpty()
                ? rules.getTransition(local).getInstant()
                : local.toInstant(
                    offsets.size() == 2
                        ? rules.getTransition(local).getOffsetBefore()
                        : offsets.getFirst());
        if (tick.isAfter(from) && tick.isBefore(to)) {
          expected.add(tick);
        }
      }
    }
    List<Instant> actual = new ArrayList<>();
    Instant t = new CronTicks(fields, zone).next(from);
    while (t != null && t.isBefore(to)) {
      actual.add(t);
      t = new CronTicks(fields, zone).next(t);
    }
    assertEquals(new ArrayList<>(expected), actual, expression + " in " + zone + " around " + tr);
    return actual.size();
  }

  @Test
  void springSkipsAMissingLocalTimeAndRunsARepeatedOneTwiceWherePostboxRunsEachOnce() {
    ZoneId paris = ZoneId.of("Europe/Paris");
    Instant gapDay = Instant.parse("2026-03-28T12:00:00Z");
    Instant overlapDay = Instant.parse("2026-10-24T12:00:00Z");
    Instant gapEnd = Instant.parse("2026-03-29T01:00:00Z");
    assertEquals(gapEnd, Schedule.cron("30 2 * * *", paris).nextTick(gapDay));
    assertEquals(
        Instant.parse("2026-03-30T00:30:00Z"),
        springTicks("0 30 2 * * *", paris, gapDay, gapDay.plus(Duration.ofDays(2))).getFirst());
    assertEquals(
        List.of(Instant.parse("2026-10-25T00:30:00Z"), Instant.parse("2026-10-26T01:30:00Z")),
        ticks(
            Schedule.cron("30 2 * * *", paris)::nextTick,
            overlapDay,
            overlapDay.plus(Duration.ofHours(38))));
    assertEquals(
        List.of(
            Instant.parse("2026-10-25T00:30:00Z"),
            Instant.parse("2026-10-25T01:30:00Z"),
            Instant.parse("2026-10-26T01:30:00Z")),
        springTicks("0 30 2 * * *", paris, overlapDay, overlapDay.plus(Duration.ofHours(38))));
  }
}
