package dev.postbox.internal.console;

import com.sun.net.httpserver.HttpExchange;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Locale;

/**
 * Who may use the console. Any request: on the console's own loopback server, only one naming a
 * loopback host (so a web page cannot reach it by rebinding its own name to 127.0.0.1). An action:
 * a token configured, given in the {@code X-Postbox-Token} header (never in a URL or a cookie, so
 * nothing ambient authorises a forged request), compared in constant time, and no sign of another
 * origin ({@code Origin}, {@code Sec-Fetch-Site}). Immutable and thread-safe.
 */
final class Guard {
  static final String TOKEN_HEADER = "X-Postbox-Token";

  private final byte[] token; // its SHA-256, null for a read-only console
  private final boolean loopbackOnly;

  Guard(String token, boolean loopbackOnly) {
    this.token = token == null ? null : sha256(token);
    this.loopbackOnly = loopbackOnly;
  }

  /** Why the request is refused whatever it asks, or null. */
  String refusal(HttpExchange ex) {
    if (!loopbackOnly) {
      return null;
    }
    String host = ex.getRequestHeaders().getFirst("Host");
    String name = host == null ? "" : hostName(host);
    boolean loopback = name.equals("localhost") || name.equals("[::1]") || loopbackIpv4(name);
    return loopback
        ? null
        : "this console answers requests for a loopback host only (Host was "
            + Params.shown(String.valueOf(host))
            + ")";
  }

  /** Whether {@code name} is an IPv4 literal in 127.0.0.0/8, not a name like 127.0.0.1.example. */
  private static boolean loopbackIpv4(String name) {
    String[] parts = name.split("\\.", -1);
    if (parts.length != 4 || !parts[0].equals("127")) {
      return false;
    }
    for (String part : parts) {
      if (part.isEmpty()
          || part.length() > 3
          || !part.chars().allMatch(c -> c >= '0' && c <= '9')
          || Integer.parseInt(part) > 255) {
        return false;
      }
    }
    return true;
  }

  private static String hostName(String host) {
    String h = host.toLowerCase(Locale.ROOT);
    if (h.startsWith("[")) {
      int end = h.indexOf(']');
      return end < 0 ? h : h.substring(0, end + 1);
    }
    int colon = h.indexOf(':');
    return colon < 0 ? h : h.substring(0, colon);
  }

  /** Why an action is refused, or null. */
  String actionRefusal(HttpExchange ex) {
    if (token == null) {
      return "this console is read-only: start it with an action token to act";
    }
    var headers = ex.getRequestHeaders();
    String origin = headers.getFirst("Origin");
    String host = headers.getFirst("Host");
    if (origin != null && !sameOrigin(origin, host)) {
      return "a request from another origin is refused (Origin " + Params.shown(origin) + ")";
    }
    String site = headers.getFirst("Sec-Fetch-Site");
    if (site != null && !site.equals("same-origin") && !site.equals("none")) {
      return "a request from another site is refused (Sec-Fetch-Site " + Params.shown(site) + ")";
    }
    String given = headers.getFirst(TOKEN_HEADER);
    if (given == null || given.isEmpty()) { // an empty field sent as is: nothing was typed
      return "an action needs the action token in the " + TOKEN_HEADER + " header";
    }
    return MessageDigest.isEqual(token, sha256(given)) ? null : "wrong action token";
  }

  private static boolean sameOrigin(String origin, String host) {
    try {
      URI o = new URI(origin);
      String authority = o.getRawAuthority();
      return host != null
          && authority != null
          && authority.equalsIgnoreCase(host)
          && ("http".equals(o.getScheme()) || "https".equals(o.getScheme()));
    } catch (java.net.URISyntaxException e) {
      return false;
    }
  }

  private static byte[] sha256(String s) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JDK", e);
    }
  }
}
