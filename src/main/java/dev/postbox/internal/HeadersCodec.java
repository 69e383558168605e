package dev.postbox.internal;

import dev.postbox.PostboxException;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Stores a string-to-string map as a flat JSON object, so the {@code headers} column is readable in
 * SQL; no JSON library, no reflection, only strings.
 */
public final class HeadersCodec {
  private HeadersCodec() {}

  /** The JSON text of {@code headers}, or null for an empty map. */
  public static String encode(Map<String, String> headers) {
    if (headers.isEmpty()) {
      return null;
    }
    StringBuilder out = new StringBuilder(32 * headers.size());
    out.append('{');
    for (Map.Entry<String, String> e : headers.entrySet()) {
      if (out.length() > 1) {
        out.append(',');
      }
      string(out, e.getKey());
      out.append(':');
      string(out, e.getValue());
    }
    return out.append('}').toString();
  }

  /** The map stored by {@link #encode}; an empty map for null. */
  public static Map<String, String> decode(String json) {
    if (json == null || json.isEmpty()) {
      return Map.of();
    }
    Parser p = new Parser(json);
    Map<String, String> map = p.object();
    return Collections.unmodifiableMap(map);
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

  private static final class Parser {
    private final String s;
    private int i;

    Parser(String s) {
      this.s = s;
    }

    Map<String, String> object() {
      Map<String, String> map = new LinkedHashMap<>();
      skipSpace();
      expect('{');
      skipSpace();
      if (peek() == '}') {
        i++;
        return map;
      }
      while (true) {
        skipSpace();
        String key = string();
        skipSpace();
        expect(':');
        skipSpace();
        map.put(key, string());
        skipSpace();
        char c = next();
        if (c == '}') {
          return map;
        }
        if (c != ',') {
          throw malformed();
        }
      }
    }

    private String string() {
      expect('"');
      StringBuilder out = new StringBuilder();
      while (true) {
        char c = next();
        if (c == '"') {
          return out.toString();
        }
        if (c != '\\') {
          out.append(c);
          continue;
        }
        char e = next();
        switch (e) {
          case '"', '\\', '/' -> out.append(e);
          case 'n' -> out.append('\n');
          case 'r' -> out.append('\r');
          case 't' -> out.append('\t');
          case 'b' -> out.append('\b');
          case 'f' -> out.append('\f');
          case 'u' -> {
            if (i + 4 > s.length()) {
              throw malformed();
            }
            out.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
            i += 4;
          }
          default -> throw malformed();
        }
      }
    }

    private void skipSpace() {
      while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
        i++;
      }
    }

    private char peek() {
      if (i >= s.length()) {
        throw malformed();
      }
      return s.charAt(i);
    }

    private char next() {
      char c = peek();
      i++;
      return c;
    }

    private void expect(char c) {
      if (next() != c) {
        throw malformed();
      }
    }

    private PostboxException malformed() {
      return new PostboxException(
          "headers column is not a JSON object of strings (at character " + i + ")");
    }
  }
}
