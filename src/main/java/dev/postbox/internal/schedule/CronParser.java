package dev.postbox.internal.schedule;

import dev.postbox.InvalidValueException;
import java.util.Locale;
import java.util.Map;

/**
 * Parses a cron expression: five fields (minute hour day-of-month month day-of-week) or six with a
 * leading seconds field, or one of the macros {@code @yearly @annually @monthly @weekly @daily
 * @midnight @hourly}. A field is a list of parts, each {@code *}, a value, or a range {@code a-b},
 * optionally with a step (<code>*&#47;n</code>, {@code a-b/n}, {@code a/n} meaning {@code a-max/n});
 * months and days of the week also by their three-letter English names; day of week 0 or 7 is
 * Sunday; {@code ?} is {@code *} in the two day fields. Stateless and thread-safe.
 */
public final class CronParser {
  private static final Map<String, String> MACROS =
      Map.of(
          "@yearly", "0 0 1 1 *",
          "@annually", "0 0 1 1 *",
          "@monthly", "0 0 1 * *",
          "@weekly", "0 0 * * 0",
          "@daily", "0 0 * * *",
          "@midnight", "0 0 * * *",
          "@hourly", "0 * * * *");
  private static final String[] MONTHS = {
    "JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"
  };
  private static final String[] DAYS = {"SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"};

  private CronParser() {}

  /**
   * The fields of {@code expression}.
   *
   * @throws InvalidValueException naming the field ({@code "cron hour"}, say) and what is wrong
   */
  public static CronFields parse(String expression) {
    if (expression == null || expression.isBlank()) {
      throw new InvalidValueException("cron", "must not be empty");
    }
    String text = expression.strip();
    if (text.startsWith("@")) {
      String fields = MACROS.get(text.toLowerCase(Locale.ROOT));
      if (fields == null) {
        throw new InvalidValueException(
            "cron",
            "macro "
                + text
                + " is not supported; use @yearly, @annually, @monthly, @weekly, @daily,"
                + " @midnight or @hourly");
      }
      text = fields;
    }
    String[] parts = text.split("\\s+");
    if (parts.length != 5 && parts.length != 6) {
      throw new InvalidValueException(
          "cron",
          "must have 5 fields (minute hour day-of-month month day-of-week) or 6 with a leading"
              + " seconds field, but \""
              + expression
              + "\" has "
              + parts.length);
    }
    int i = parts.length == 6 ? 1 : 0;
    long seconds = i == 1 ? field("second", parts[0], 0, 59, null, expression) : 1L;
    long minutes = field("minute", parts[i], 0, 59, null, expression);
    long hours = field("hour", parts[i + 1], 0, 23, null, expression);
    long days = field("day-of-month", parts[i + 2], 1, 31, null, expression);
    long months = field("month", parts[i + 3], 1, 12, MONTHS, expression);
    long weekdays = field("day-of-week", parts[i + 4], 0, 7, DAYS, expression);
    if ((weekdays & (1L << 7)) != 0) { // 7 is Sunday, as 0 is
      weekdays = (weekdays & ~(1L << 7)) | 1L;
    }
    return new CronFields(
        seconds,
        minutes,
        hours,
        days,
        months,
        weekdays,
        unrestricted(parts[i + 2]),
        unrestricted(parts[i + 4]));
  }

  /**
   * As Vixie cron decides: a day field that starts with {@code *} (or is {@code ?}) does not
   * restrict the day, even with a step, so the other day field alone decides.
   */
  private static boolean unrestricted(String field) {
    return field.startsWith("*") || field.equals("?");
  }

  /** The values of one field as bits (bit v set: value v matches). */
  private static long field(
      String name, String text, int min, int max, String[] names, String expression) {
    String field = "cron " + name;
    long bits = 0;
    for (String part : text.split(",", -1)) {
      if (part.isEmpty()) {
        throw new InvalidValueException(field, "has an empty list element in \"" + text + "\"");
      }
      bits |= part(field, part, min, max, names, expression);
    }
    return bits;
  }

  private static long part(
      String field, String part, int min, int max, String[] names, String expression) {
    int slash = part.indexOf('/');
    String range = slash < 0 ? part : part.substring(0, slash);
    int step = 1;
    if (slash >= 0) {
      step = number(field, part.substring(slash + 1), "step", expression);
      if (step < 1 || step > max) {
        throw new InvalidValueException(
            field, "step " + step + " must be between 1 and " + max + " in \"" + expression + "\"");
      }
    }
    int from;
    int to;
    boolean dayField = field.endsWith("day-of-month") || field.endsWith("day-of-week");
    if (range.equals("*") || (dayField && range.equals("?"))) {
      from = min;
      to = field.endsWith("day-of-week") ? 6 : max;
    } else {
      int dash = range.indexOf('-', 1);
      from = value(field, dash < 0 ? range : range.substring(0, dash), min, max, names, expression);
      to =
          dash < 0
              ? (slash >= 0 ? max : from)
              : value(field, range.substring(dash + 1), min, max, names, expression);
      if (to < from) {
        throw new InvalidValueException(
            field, "range " + range + " runs backwards in \"" + expression + "\"");
      }
    }
    long bits = 0;
    for (int v = from; v <= to; v += step) {
      bits |= 1L << v;
    }
    return bits;
  }

  private static int value(
      String field, String text, int min, int max, String[] names, String expression) {
    if (names != null) {
      for (int i = 0; i < names.length; i++) {
        if (names[i].equalsIgnoreCase(text)) {
          return names == MONTHS ? i + 1 : i;
        }
      }
    }
    int value = number(field, text, "value", expression);
    if (value < min || value > max) {
      throw new InvalidValueException(
          field,
          "value " + value + " is out of range " + min + "-" + max + " in \"" + expression + "\"");
    }
    return value;
  }

  private static int number(String field, String text, String what, String expression) {
    if (text.isEmpty() || text.length() > 4 || !text.chars().allMatch(Character::isDigit)) {
      throw new InvalidValueException(
          field, what + " \"" + text + "\" is not a number or name in \"" + expression + "\"");
    }
    return Integer.parseInt(text);
  }
}
