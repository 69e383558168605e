package dev.postbox.internal.console;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.Map;

/**
 * Writes the console's data as JSON: maps, lists, strings, numbers, booleans, instants (as ISO-8601
 * strings), durations (as milliseconds) and null. Every string is escaped, so a stored error text
 * cannot break out of its value. Stateless.
 */
final class Json {
  private Json() {}

  static String write(Object value) {
    StringBuilder out = new StringBuilder();
    write(out, value);
    return out.toString();
  }

  private static void write(StringBuilder out, Object value) {
    switch (value) {
      case null -> out.append("null");
      case Map<?, ?> map -> {
        out.append('{');
        boolean first = true;
        for (Map.Entry<?, ?> e : map.entrySet()) {
          out.append(first ? "" : ",");
          first = false;
          string(out, String.valueOf(e.getKey()));
          out.append(':');
          write(out, e.getValue());
        }
        out.append('}');
      }
      case Collection<?> list -> {
        out.append('[');
        boolean first = true;
        for (Object item : list) {
          out.append(first ? "" : ",");
          first = false;
          write(out, item);
        }
        out.append(']');
      }
      case Number n -> out.append(n);
      case Boolean b -> out.append(b);
      case Duration d -> out.append(d.toMillis());
      case Instant t -> string(out, t.toString());
      default -> string(out, value.toString());
    }
  }

  private static void string(StringBuilder out, String s) {
    out.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        // also escaped: what could close a script element or open markup if a page inlined it
        case '<', '>', '&', '\u2028', '\u2029' -> out.append(String.format("\\u%04x", (int) c));
        default -> {
          if (c < 0x20) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    out.append('"');
  }
}
