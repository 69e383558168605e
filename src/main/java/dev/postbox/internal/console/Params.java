package dev.postbox.internal.console;

import dev.postbox.InvalidValueException;
import dev.postbox.internal.Rules;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The parameters of one console request (a query string or a form body), checked strictly: each
 * name known to the route and given once, each value by its rules. A bad one is an {@link
 * InvalidValueException} naming the parameter and the limit, which the console answers with 400
 * before anything is read or written. Not thread-safe; one per request.
 */
final class Params {
  static final int MAX_PAGE = 500;
  private static final int MAX_LENGTH = 8192;

  private final Map<String, String> values;

  private Params(Map<String, String> values) {
    this.values = values;
  }

  /** Parses {@code raw} (may be null), allowing only the names in {@code known}. */
  static Params parse(String raw, Set<String> known) {
    Map<String, String> values = new LinkedHashMap<>();
    if (raw == null || raw.isEmpty()) {
      return new Params(values);
    }
    if (raw.length() > MAX_LENGTH) {
      throw new InvalidValueException(
          "parameters", "must be at most " + MAX_LENGTH + " characters but were " + raw.length());
    }
    for (String pair : raw.split("&", -1)) {
      int eq = pair.indexOf('=');
      String name = decode("a parameter name", eq < 0 ? pair : pair.substring(0, eq));
      String value = eq < 0 ? "" : decode(name, pair.substring(eq + 1));
      if (!known.contains(name)) {
        throw new InvalidValueException(
            shown(name), "is not a parameter of this page (known: " + known + ")");
      }
      if (values.put(name, value) != null) {
        throw new InvalidValueException(name, "must be given once");
      }
    }
    return new Params(values);
  }

  private static String decode(String field, String raw) {
    try {
      return URLDecoder.decode(raw, StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      throw new InvalidValueException(shown(field), "is not well-formed URL encoding");
    }
  }

  /** A name as an error message may show it: trimmed, without control characters. */
  static String shown(String s) {
    String cut = s.length() > 40 ? s.substring(0, 40) + "…" : s;
    return cut.replaceAll("\\p{Cntrl}", "?");
  }

  /** The value of {@code name}, or null if absent or empty (an unfilled form field). */
  String optional(String name) {
    String v = values.get(name);
    return v == null || v.isEmpty() ? null : v;
  }

  /** The value of {@code name}; absent or empty is an error. */
  String required(String name) {
    String v = values.get(name);
    if (v == null || v.isEmpty()) {
      throw new InvalidValueException(name, "is required");
    }
    return v;
  }

  /** {@code name} as a number from {@code min} to {@code max}; {@code absent} if not given. */
  long number(String name, long min, long max, long absent) {
    String v = optional(name);
    if (v == null) {
      return absent;
    }
    if (v.length() > 19 || !v.chars().allMatch(c -> c >= '0' && c <= '9')) {
      throw new InvalidValueException(
          name,
          "must be a whole number from " + min + " to " + max + " but was '" + shown(v) + "'");
    }
    long n = Long.parseLong(v.length() == 19 && v.compareTo("9223372036854775807") > 0 ? "-1" : v);
    if (n < min || n > max) {
      throw new InvalidValueException(
          name,
          "must be a whole number from " + min + " to " + max + " but was '" + shown(v) + "'");
    }
    return n;
  }

  /** A required row id. */
  long id() {
    required("id");
    return number("id", 1, Long.MAX_VALUE, 0);
  }

  /**
   * The filter of a list or bulk action: topic (or job name), key and error text, each optional.
   */
  Filter filter() {
    String topic = optional("topic");
    String key = optional("key");
    String error = optional("error");
    return new Filter(
        topic == null ? null : Rules.name("topic", topic),
        key == null ? null : Rules.id("key", key, 255),
        error == null ? null : Rules.text("error", error, 200, false));
  }

  /** The table named by the required {@code table} parameter: one the console shows. */
  ConsoleTable table(ConsoleConfig config) {
    String name = required("table");
    ConsoleTable t = config.table(name);
    if (t == null) {
      throw new InvalidValueException(
          "table",
          "must be one of "
              + config.tables().stream().map(ConsoleTable::name).toList()
              + " but was '"
              + shown(name)
              + "'");
    }
    return t;
  }

  /** A required event id in {@code name}. */
  String eventId(String name) {
    return Rules.eventId(name, required(name));
  }

  /** A required job or schedule name. */
  String name() {
    return Rules.name("name", required("name"));
  }
}
