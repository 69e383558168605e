package dev.postbox.internal.console;

import java.util.Map;

/**
 * The console's HTML: escaping, and the frame every page shares. Every stored string goes through
 * {@link #text}, so a key, topic or error text holding markup renders as text. Stateless.
 */
final class Html {
  private Html() {}

  /** {@code value} escaped for an element's text or a quoted attribute; null as an empty string. */
  static String text(Object value) {
    if (value == null) {
      return "";
    }
    String s = value.toString();
    StringBuilder out = new StringBuilder(s.length() + 16);
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '&' -> out.append("&amp;");
        case '<' -> out.append("&lt;");
        case '>' -> out.append("&gt;");
        case '"' -> out.append("&quot;");
        case '\'' -> out.append("&#39;");
        default -> out.append(c);
      }
    }
    return out.toString();
  }

  /** A URL's query value, percent-encoded. */
  static String query(Object value) {
    return java.net.URLEncoder.encode(
        value == null ? "" : value.toString(), java.nio.charset.StandardCharsets.UTF_8);
  }

  /** A count as read from at most {@code cap + 1} rows: "more than cap" when it reached it. */
  static String count(Object n, long cap) {
    long v = ((Number) n).longValue();
    return v > cap ? "more than " + String.format("%,d", cap) : String.format("%,d", v);
  }

  /** A whole page: head, navigation, the token field when actions are on, then {@code body}. */
  static String page(String title, boolean actions, String body) {
    return "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        + "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
        + "<title>"
        + text(title)
        + " · Postbox console</title><link rel=\"stylesheet\" href=\"console.css\">"
        // the icon is named, and relative, so the browser asks the console for it, not /favicon.ico
        // (a 404 in every page's console, or the application's own icon where it is mounted)
        + "<link rel=\"icon\" href=\"favicon.svg\">"
        + "<script src=\"console.js\" defer></script></head>"
        + "<body data-actions=\""
        + (actions ? "on" : "off")
        + "\"><header><strong>Postbox console</strong> <nav><a href=\"./\">Overview</a>"
        + " <a href=\"schedules\">Schedules</a> <a href=\"metrics\">Metrics</a></nav>"
        + (actions
            ? "<label>Action token <input id=\"token\" type=\"password\" autocomplete=\"off\"></label>"
            : "<span class=\"readonly\">read-only</span>")
        + "</header><p id=\"status\" role=\"status\"></p><main><h1>"
        + text(title)
        + "</h1>"
        + body
        + "</main></body></html>\n";
  }

  /** A button that runs {@code action} with {@code data} (attribute name → value) when clicked. */
  static String button(String label, String action, Map<String, Object> data) {
    StringBuilder b =
        new StringBuilder("<button type=\"button\" data-action=\"" + text(action) + "\"");
    data.forEach(
        (k, v) -> {
          if (v != null) {
            b.append(" data-").append(k).append("=\"").append(text(v)).append('"');
          }
        });
    return b.append('>').append(text(label)).append("</button>").toString();
  }
}
