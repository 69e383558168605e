package dev.postbox.internal;

import dev.postbox.InvalidValueException;
import dev.postbox.internal.jdbc.Text;

/** The input rules shared by messages, jobs and the inbox; each failure names field and limit. */
public final class Rules {
  public static final int MAX_NAME = 200;
  public static final int MAX_EVENT_ID = 128;
  public static final int MAX_KEY = 255;
  public static final int MAX_HEADER_NAME = 128;
  public static final int MAX_HEADER_VALUE = 8192;
  public static final int MAX_HEADERS = 64;
  public static final int DEFAULT_PAYLOAD_LIMIT = 1024 * 1024;

  private Rules() {}

  /** A topic or job name: 1-200 letters, digits, '.', '_', '-', starting with a letter or digit. */
  public static String name(String field, String value) {
    if (value == null) {
      throw new InvalidValueException(field, "must not be null");
    }
    if (value.isEmpty() || value.length() > MAX_NAME) {
      throw new InvalidValueException(
          field, "must be 1 to " + MAX_NAME + " characters but has " + value.length());
    }
    if (!isName(value)) {
      throw new InvalidValueException(
          field,
          "must contain only letters, digits, '.', '_' and '-' and start with a letter or digit"
              + " (was "
              + Text.describe(value)
              + ")");
    }
    return value;
  }

  /**
   * Whether {@code value} is {@code [A-Za-z0-9][A-Za-z0-9._-]*}: a loop, not a regex, since every
   * {@code Message.of} checks its topic (the matcher was the largest Java cost of an add).
   */
  private static boolean isName(String value) {
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      boolean letterOrDigit =
          (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
      if (!letterOrDigit && (i == 0 || (c != '.' && c != '_' && c != '-'))) {
        return false;
      }
    }
    return true;
  }

  /**
   * An event id, dedupe key or inbox id: 1-128 characters, no control characters, no leading or
   * trailing whitespace.
   */
  public static String eventId(String field, String value) {
    return id(field, value, MAX_EVENT_ID);
  }

  /**
   * A value the database compares for equality (an event id, dedupe key, message key or instance
   * id): {@link #text} that neither starts nor ends with whitespace.
   */
  public static String id(String field, String value, int max) {
    text(field, value, max, false);
    requireNoOuterWhitespace(field, value);
    return value;
  }

  /** Up to {@code max} characters without control characters; null allowed if {@code nullable}. */
  public static String text(String field, String value, int max, boolean nullable) {
    if (value == null) {
      if (nullable) {
        return null;
      }
      throw new InvalidValueException(field, "must not be null");
    }
    if (value.isEmpty() || value.length() > max) {
      throw new InvalidValueException(
          field, "must be 1 to " + max + " characters but has " + value.length());
    }
    for (int i = 0; i < value.length(); i++) {
      if (Character.isISOControl(value.charAt(i))) {
        throw new InvalidValueException(
            field, "must not contain control characters (found one at index " + i + ")");
      }
    }
    requireWellFormed(field, value);
    return value;
  }

  /**
   * Refuses unpaired UTF-16 surrogates: drivers store each as '?', so two different ids would
   * become one and the second would be dropped as a duplicate.
   */
  private static void requireWellFormed(String field, String value) {
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (Character.isHighSurrogate(c)
          && i + 1 < value.length()
          && Character.isLowSurrogate(value.charAt(i + 1))) {
        i++;
      } else if (Character.isSurrogate(c)) {
        throw new InvalidValueException(
            field, "must be well-formed Unicode (unpaired surrogate at index " + i + ")");
      }
    }
  }

  /**
   * Refuses leading and trailing whitespace ({@link Character#isWhitespace}): MySQL's and MariaDB's
   * utf8mb4_bin is a PAD SPACE collation, where "a" equals "a ", so a distinct id was dropped as a
   * duplicate there and stored elsewhere. One rule on every database instead.
   */
  private static void requireNoOuterWhitespace(String field, String value) {
    int first = value.codePointAt(0);
    int last = value.codePointBefore(value.length());
    int index;
    int found;
    if (Character.isWhitespace(first)) {
      index = 0;
      found = first;
    } else if (Character.isWhitespace(last)) {
      index = value.length() - Character.charCount(last);
      found = last;
    } else {
      return;
    }
    throw new InvalidValueException(
        field,
        "must not start or end with whitespace (was "
            + Text.describe(value)
            + ", "
            + String.format("U+%04X", found)
            + " at index "
            + index
            + ")");
  }

  public static void header(String name, String value) {
    text("header name", name, MAX_HEADER_NAME, false);
    if (value == null) {
      throw new InvalidValueException("header '" + name + "'", "value must not be null");
    }
    if (value.length() > MAX_HEADER_VALUE) {
      throw new InvalidValueException(
          "header '" + name + "'",
          "value must be at most " + MAX_HEADER_VALUE + " characters but has " + value.length());
    }
    for (int i = 0; i < value.length(); i++) {
      if (Character.isISOControl(value.charAt(i))) {
        throw new InvalidValueException(
            "header '" + name + "'", "value must not contain control characters (index " + i + ")");
      }
    }
    requireWellFormed("header '" + name + "'", value);
  }

  public static void headerCount(int count) {
    if (count > MAX_HEADERS) {
      throw new InvalidValueException(
          "headers", "must be at most " + MAX_HEADERS + " entries but has " + count);
    }
  }

  /** A payload: not null, no U+0000, at most {@code limitBytes} bytes as UTF-8. */
  public static String payload(String value, int limitBytes) {
    if (value == null) {
      throw new InvalidValueException("payload", "must not be null");
    }
    int nul = value.indexOf('\0');
    if (nul >= 0) {
      // PostgreSQL cannot store U+0000 in text; refused everywhere so behaviour is the same
      throw new InvalidValueException(
          "payload", "must not contain the NUL character U+0000 (found at index " + nul + ")");
    }
    if ((long) value.length() * 3 > limitBytes) {
      long bytes = utf8Length(value);
      if (bytes > limitBytes) {
        throw new InvalidValueException(
            "payload", "must be at most " + limitBytes + " bytes (UTF-8) but has " + bytes);
      }
    }
    return value;
  }

  private static long utf8Length(String s) {
    long bytes = 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < 0x80) {
        bytes += 1;
      } else if (c < 0x800) {
        bytes += 2;
      } else if (Character.isHighSurrogate(c) && i + 1 < s.length()) {
        bytes += 4;
        i++;
      } else {
        bytes += 3;
      }
    }
    return bytes;
  }
}
