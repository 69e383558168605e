package dev.postbox.internal.jdbc;

import java.util.regex.Pattern;

/** Small string helpers for messages that must never leak content. */
public final class Text {
  private static final Pattern CONTROL = Pattern.compile("\\p{Cntrl}");

  private Text() {}

  /**
   * Quotes {@code value} for an error message if it is short and printable, else describes its
   * size.
   */
  public static String describe(String value) {
    if (value.length() <= 80 && value.chars().noneMatch(Character::isISOControl)) {
      return "'" + value + "'";
    }
    return "a string of " + value.length() + " characters";
  }

  /** {@code value} cut to at most {@code max} characters. */
  public static String truncate(String value, int max) {
    return value == null || value.length() <= max ? value : value.substring(0, max);
  }

  /** Class name and message of {@code error}, for the {@code last_error} column. */
  public static String errorOf(Throwable error) {
    String message = error.getMessage();
    String text = error.getClass().getName() + (message == null ? "" : ": " + message);
    // control characters (NUL above all, which PostgreSQL refuses) would make the write fail
    return truncate(CONTROL.matcher(text).replaceAll(" "), 2000);
  }
}
