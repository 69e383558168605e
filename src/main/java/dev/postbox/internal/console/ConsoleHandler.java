package dev.postbox.internal.console;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import dev.postbox.InvalidValueException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The console's HTTP routes: pages and {@code /api/…} reads by GET, actions by POST to {@code
 * /api/<action>} with the token. Every response carries a strict Content-Security-Policy; a bad
 * parameter is a 400 that names it, before anything is read or written. Thread-safe.
 */
public final class ConsoleHandler implements HttpHandler {
  private static final Logger log = LoggerFactory.getLogger(ConsoleHandler.class);
  private static final String CSP =
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self';"
          + " form-action 'self'; base-uri 'none'; frame-ancestors 'none'";
  private static final Set<String> LIST = Set.of("table", "topic", "key", "error", "after", "size");
  private static final Set<String> TABLE = Set.of("table");
  private static final Set<String> ROW = Set.of("table", "ref");
  private static final int MAX_BODY = 8192;

  private final ConsoleConfig config;
  private final ConsoleData data;
  private final Actions actions;
  private final Guard guard;

  /** {@code loopbackOnly}: requests must name a loopback host (the console's own server). */
  public ConsoleHandler(ConsoleConfig config, boolean loopbackOnly) {
    this.config = config;
    this.data = new ConsoleData(config);
    this.actions = new Actions(config, data);
    this.guard = new Guard(config.token(), loopbackOnly);
  }

  @Override
  public void handle(HttpExchange ex) throws IOException {
    try (ex) {
      String raw = ex.getRequestURI().getRawPath();
      String context = ex.getHttpContext().getPath();
      if (!raw.endsWith("/") && context.startsWith(raw)) { // the page's links are relative to a "/"
        ex.getResponseHeaders().set("Location", raw + "/");
        ex.sendResponseHeaders(301, -1);
        return;
      }
      String path = raw.length() < context.length() ? "" : raw.substring(context.length());
      path = path.startsWith("/") ? path.substring(1) : path;
      boolean api = path.startsWith("api/");
      try {
        String refused = guard.refusal(ex);
        if (refused != null) {
          send(ex, 403, api, refused);
          return;
        }
        route(ex, path, api);
      } catch (InvalidValueException e) {
        send(ex, 400, api, e.getMessage());
      } catch (SQLException | RuntimeException e) {
        log.warn("console - {} {} failed", ex.getRequestMethod(), path, e);
        send(ex, 503, api, "the console could not read the database: " + e.getMessage());
      }
    }
  }

  private void route(HttpExchange ex, String path, boolean api) throws IOException, SQLException {
    String method = ex.getRequestMethod();
    if (api && method.equals("POST")) {
      String action = path.substring("api/".length());
      Set<String> known = Actions.PARAMS.get(action);
      if (known == null) {
        send(
            ex,
            404,
            true,
            "no action '" + Params.shown(action) + "'; actions: " + Actions.PARAMS.keySet());
        return;
      }
      String refused = guard.actionRefusal(ex);
      if (refused != null) {
        send(ex, 403, true, refused);
        return;
      }
      Actions.Done done = actions.run(action, Params.parse(body(ex), known));
      json(
          ex,
          done.changed() > 0 ? 200 : 409,
          ConsoleData.map("changed", done.changed(), "message", done.message()));
      return;
    }
    if (!method.equals("GET")) {
      ex.getResponseHeaders().set("Allow", api ? "GET, POST" : "GET");
      send(ex, 405, api, method + " is not allowed here");
      return;
    }
    String query = ex.getRequestURI().getRawQuery();
    String page = api ? path.substring("api/".length()) : path;
    switch (page) {
      case "", "overview" -> {
        Params.parse(query, Set.of());
        Map<String, Object> d = data.overview();
        respond(ex, api, d, OverviewPage::render);
      }
      case "parked", "failing" -> {
        Params p = Params.parse(query, LIST);
        ConsoleTable t = p.table(config);
        Filter f = p.filter();
        long after = p.number("after", 0, Long.MAX_VALUE, 0);
        int size = (int) p.number("size", 1, Params.MAX_PAGE, 50);
        respond(ex, api, data.rows(t, page.equals("parked"), f, after, size), Pages::rows);
      }
      case "row" -> {
        Params p = Params.parse(query, ROW);
        ConsoleTable t = p.table(config);
        Map<String, Object> d = data.row(t, p);
        respond(ex, api, d, Pages::row);
      }
      case "blocked" ->
          respond(ex, api, data.blocked(Params.parse(query, TABLE).table(config)), Pages::blocked);
      case "schedules" -> {
        Params.parse(query, Set.of());
        respond(ex, api, data.schedules(), Pages::schedules);
      }
      case "metrics" -> {
        Params.parse(query, Set.of());
        write(ex, 200, "text/plain; version=0.0.4; charset=utf-8", Metrics.render(data.overview()));
      }
      case "console.js" -> asset(ex, "console.js", "text/javascript; charset=utf-8");
      case "console.css" -> asset(ex, "console.css", "text/css; charset=utf-8");
      case "favicon.svg" -> asset(ex, "favicon.svg", "image/svg+xml; charset=utf-8");
      default -> send(ex, 404, api, "no page '" + Params.shown(page) + "'");
    }
  }

  private interface Page {
    String render(Map<String, Object> data);
  }

  private static void respond(HttpExchange ex, boolean api, Map<String, Object> d, Page page)
      throws IOException {
    if (api) {
      json(ex, 200, d);
    } else {
      write(ex, 200, "text/html; charset=utf-8", page.render(d));
    }
  }

  private static String body(HttpExchange ex) throws IOException {
    String type = ex.getRequestHeaders().getFirst("Content-Type");
    if (type == null || !type.toLowerCase().startsWith("application/x-www-form-urlencoded")) {
      throw new InvalidValueException(
          "Content-Type", "must be application/x-www-form-urlencoded but was " + type);
    }
    try (InputStream in = ex.getRequestBody()) {
      byte[] body = in.readNBytes(MAX_BODY + 1);
      if (body.length > MAX_BODY) {
        throw new InvalidValueException("body", "must be at most " + MAX_BODY + " bytes");
      }
      return new String(body, StandardCharsets.UTF_8);
    }
  }

  private void asset(HttpExchange ex, String name, String type) throws IOException {
    try (InputStream in = ConsoleHandler.class.getResourceAsStream(name)) {
      write(ex, 200, type, new String(in.readAllBytes(), StandardCharsets.UTF_8));
    }
  }

  private static void json(HttpExchange ex, int status, Map<String, Object> d) throws IOException {
    write(ex, status, "application/json; charset=utf-8", Json.write(d));
  }

  private static void send(HttpExchange ex, int status, boolean api, String message)
      throws IOException {
    if (api) {
      json(ex, status, ConsoleData.map("error", message));
    } else {
      write(ex, status, "text/html; charset=utf-8", Pages.error(status, message));
    }
  }

  private static void write(HttpExchange ex, int status, String type, String body)
      throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    var h = ex.getResponseHeaders();
    h.set("Content-Type", type);
    h.set("Content-Security-Policy", CSP);
    h.set("X-Content-Type-Options", "nosniff");
    h.set("X-Frame-Options", "DENY");
    h.set("Referrer-Policy", "no-referrer");
    h.set("Cache-Control", "no-store");
    ex.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = ex.getResponseBody()) {
      out.write(bytes);
    }
  }
}
