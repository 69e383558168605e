package dev.postbox.internal.schedule;

import java.time.zone.ZoneOffsetTransition;
import java.util.Locale;
import java.util.Random;

/** Random cron expressions for the comparison tests: every construct of the grammar. */
final class CronGenerator {
  private static final String[] MONTHS = {
    "JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"
  };
  private static final String[] DAYS = {"SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"};

  private CronGenerator() {}

  /** Five fields, or six with seconds (three in ten). */
  static String expression(Random r) {
    String fields =
        String.join(
            " ",
            field(r, 0, 59, null),
            field(r, 0, 23, null),
            day(r, field(r, 1, 31, null)),
            r.nextInt(3) == 0 ? field(r, 1, 12, MONTHS) : "*",
            day(r, weekdays(r)));
    return r.nextInt(10) < 3 ? field(r, 0, 59, null) + " " + fields : fields;
  }

  /** A day field: itself, or (one in three) {@code *} or {@code ?} so that days are not sparse. */
  private static String day(Random r, String field) {
    return switch (r.nextInt(6)) {
      case 0, 1 -> "*";
      case 2 -> "?";
      default -> field;
    };
  }

  /**
   * A day-of-week field without the forms Spring reads differently by design: it counts 1-7 from
   * Monday, so a step from {@code *} or {@code 0} starts on Monday there and on Sunday in Vixie
   * cron, and a range from Sunday to Sunday written {@code 7-7} or {@code SUN-SUN} matches every
   * day there.
   */
  private static String weekdays(Random r) {
    while (true) {
      String field = field(r, 0, 7, DAYS);
      boolean stepFromSunday =
          field.contains("/") && (field.startsWith("*") || field.startsWith("0"));
      String upper = field.toUpperCase(Locale.ROOT);
      boolean sundayToSunday = upper.startsWith("SUN-SUN") || upper.startsWith("SUN-7");
      if (!stepFromSunday && !field.startsWith("7-") && !sundayToSunday) {
        return field;
      }
    }
  }

  /** An expression whose ticks fall in the local hours around {@code tr}. */
  static String nearTransition(Random r, ZoneOffsetTransition tr) {
    int before = tr.getDateTimeBefore().getHour();
    int after = tr.getDateTimeAfter().getHour();
    int low = Math.max(0, Math.min(before, after) - 1);
    int high = Math.min(23, Math.max(before, after) + 1);
    String hour =
        switch (r.nextInt(4)) {
          case 0 -> "*";
          case 1 -> low + "-" + high;
          case 2 -> before + "," + after;
          default -> String.valueOf(r.nextBoolean() ? before : after);
        };
    String minute =
        switch (r.nextInt(4)) {
          case 0 -> "*";
          case 1 -> "*/" + (1 + r.nextInt(30));
          case 2 -> String.valueOf(r.nextInt(60));
          default -> r.nextInt(30) + "-" + (30 + r.nextInt(30));
        };
    String second = r.nextInt(4) == 0 ? "*/" + (10 + r.nextInt(21)) + " " : "";
    String day = r.nextBoolean() ? "*" : String.valueOf(tr.getDateTimeBefore().getDayOfMonth());
    return second + minute + " " + hour + " " + day + " * *";
  }

  /** One field over {@code min..max}: any of the grammar's forms, names where there are any. */
  private static String field(Random r, int min, int max, String[] names) {
    int span = max - min + 1;
    int a = min + r.nextInt(span);
    int b = a + r.nextInt(max - a + 1);
    int step = 1 + r.nextInt(Math.max(1, span / 2));
    return switch (r.nextInt(names == null ? 8 : 10)) {
      case 0 -> "*";
      case 1 -> String.valueOf(a);
      case 2 -> a + "," + (min + r.nextInt(span)) + "," + (min + r.nextInt(span));
      case 3 -> a + "-" + b;
      case 4 -> "*/" + step;
      case 5 -> a + "-" + b + "/" + step;
      case 6 -> a + "/" + step;
      case 7 -> a + "-" + b + "," + (min + r.nextInt(span));
      case 8 -> name(names, a, min, r) + "-" + (b == 7 ? "7" : name(names, b, min, r));
      default -> name(names, a, min, r);
    };
  }

  private static String name(String[] names, int value, int min, Random r) {
    int i = (value - min) % names.length; // day 7 is Sunday, index 0
    String name = names[i];
    return r.nextBoolean() ? name : name.toLowerCase();
  }
}
