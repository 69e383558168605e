package dev.postbox.internal.schedule;

import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;

/**
 * A parsed cron expression as one bit set per field (bit v set: value v matches), and the local
 * date-times it matches. Immutable and thread-safe.
 *
 * @param domStar the day-of-month field starts with {@code *}: with a restricted day-of-week, only
 *     the day of week decides (and the other way round); when both day fields are restricted, a day
 *     matches if either does (Vixie cron)
 */
public record CronFields(
    long seconds,
    long minutes,
    long hours,
    long days,
    long months,
    long weekdays,
    boolean domStar,
    boolean dowStar) {

  /** Searching further than this finds nothing a search up to it did not (leap years repeat). */
  private static final int SEARCH_YEARS = 30;

  /** Whether the cron matches {@code date} by its day-of-month, month and day-of-week fields. */
  public boolean matches(LocalDate date) {
    if (!has(months, date.getMonthValue())) {
      return false;
    }
    boolean dom = has(days, date.getDayOfMonth());
    boolean dow = has(weekdays, date.getDayOfWeek().getValue() % 7);
    return domStar || dowStar ? dom && dow : dom || dow;
  }

  /** Whether the cron matches {@code time} (to the second, nanos ignored). */
  public boolean matches(LocalDateTime time) {
    return matches(time.toLocalDate())
        && has(hours, time.getHour())
        && has(minutes, time.getMinute())
        && has(seconds, time.getSecond());
  }

  /** The first local date-time after {@code after} that matches, or null if none ever will. */
  public LocalDateTime next(LocalDateTime after) {
    LocalDate date = after.toLocalDate();
    LocalTime time = nextTime(after.toLocalTime().withNano(0), true);
    if (time == null || !matches(date)) {
      date = nextDate(date);
      time = date == null ? null : nextTime(LocalTime.MIDNIGHT, false);
    }
    return date == null ? null : date.atTime(time);
  }

  /** The first matching day after {@code date}, or null within the search limit. */
  private LocalDate nextDate(LocalDate date) {
    LocalDate limit = date.plusYears(SEARCH_YEARS);
    LocalDate d = date.plusDays(1);
    while (!d.isAfter(limit)) {
      if (!has(months, d.getMonthValue())) {
        d = d.withDayOfMonth(1).plusMonths(1);
      } else if (matches(d)) {
        return d;
      } else {
        d = d.plusDays(1);
      }
    }
    return null;
  }

  /**
   * The first matching time of day at or after {@code from} (strictly after if {@code after}), or
   * null if none is left in the day.
   */
  private LocalTime nextTime(LocalTime from, boolean after) {
    int second = from.toSecondOfDay() + (after ? 1 : 0);
    while (second < 86_400) {
      int h = second / 3600;
      int m = second / 60 % 60;
      int s = second % 60;
      int nh = nextBit(hours, h, 23);
      if (nh != h) {
        if (nh < 0) {
          return null;
        }
        second = nh * 3600;
        continue;
      }
      int nm = nextBit(minutes, m, 59);
      if (nm != m) {
        second = nm < 0 ? (h + 1) * 3600 : h * 3600 + nm * 60;
        continue;
      }
      int ns = nextBit(seconds, s, 59);
      if (ns != s) {
        second = ns < 0 ? h * 3600 + (m + 1) * 60 : h * 3600 + m * 60 + ns;
        continue;
      }
      return LocalTime.ofSecondOfDay(second);
    }
    return null;
  }

  /** The lowest set bit at or above {@code from} and at most {@code max}, or -1. */
  private static int nextBit(long bits, int from, int max) {
    long above = bits & (-1L << from);
    int bit = above == 0 ? -1 : Long.numberOfTrailingZeros(above);
    return bit > max ? -1 : bit;
  }

  private static boolean has(long bits, int value) {
    return (bits & (1L << value)) != 0;
  }
}
