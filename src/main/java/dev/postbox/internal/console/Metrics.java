package dev.postbox.internal.console;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The overview in the Prometheus text format (version 0.0.4), for {@code GET /metrics}: gauges of
 * each table's counts (each read from at most {@link ConsoleSql#CAP} rows) and lag, and counters of
 * what the dispatcher in this JVM finished. Stateless.
 */
final class Metrics {
  private Metrics() {}

  private record Gauge(String name, String key, String help) {}

  private static final List<Gauge> GAUGES =
      List.of(
          new Gauge("postbox_due", "due", "Rows whose time has come that no live lease holds."),
          new Gauge("postbox_running", "running", "Rows held by a live lease."),
          new Gauge("postbox_retrying", "retrying", "Rows that failed and wait for a retry."),
          new Gauge("postbox_parked", "parked", "Rows out of attempts, waiting for an operator."),
          new Gauge("postbox_blocked_keys", "blockedKeys", "Keys blocked by a parked head."));

  private static final List<Gauge> COUNTERS =
      List.of(
          new Gauge("postbox_delivered_total", "delivered", "Rows delivered by this JVM."),
          new Gauge("postbox_failed_total", "failed", "Failed attempts retried, in this JVM."),
          new Gauge("postbox_parked_total", "parked", "Rows parked by this JVM."));

  static String render(Map<String, Object> overview) {
    List<?> tables = (List<?>) overview.get("tables");
    StringBuilder out = new StringBuilder();
    for (Gauge g : GAUGES) {
      header(out, g, "gauge");
      for (Object o : tables) {
        Map<?, ?> t = (Map<?, ?>) o;
        line(out, g.name(), t.get("table"), ((Number) t.get(g.key())).longValue());
      }
    }
    header(out, new Gauge("postbox_lag_seconds", "", "Age of the oldest due row."), "gauge");
    for (Object o : tables) {
      Map<?, ?> t = (Map<?, ?>) o;
      Duration lag = (Duration) t.get("lagMillis");
      out.append("postbox_lag_seconds{table=\"")
          .append(label(t.get("table")))
          .append("\"} ")
          .append(lag.toMillis() / 1000.0)
          .append('\n');
    }
    for (Gauge g : COUNTERS) {
      header(out, g, "counter");
      for (Object o : tables) {
        Map<?, ?> t = (Map<?, ?>) o;
        Map<?, ?> lane = (Map<?, ?>) t.get("dispatcher");
        if (lane != null) {
          line(out, g.name(), t.get("table"), ((Number) lane.get(g.key())).longValue());
        }
      }
    }
    Map<?, ?> inbox = (Map<?, ?>) overview.get("inbox");
    if (inbox != null) {
      header(out, new Gauge("postbox_inbox_processed", "", "Event ids an inbox keeps."), "gauge");
      line(
          out,
          "postbox_inbox_processed",
          inbox.get("table"),
          ((Number) inbox.get("processed")).longValue());
    }
    return out.toString();
  }

  private static void header(StringBuilder out, Gauge g, String type) {
    out.append("# HELP ").append(g.name()).append(' ').append(g.help()).append('\n');
    out.append("# TYPE ").append(g.name()).append(' ').append(type).append('\n');
  }

  private static void line(StringBuilder out, String name, Object table, long value) {
    out.append(name)
        .append("{table=\"")
        .append(label(table))
        .append("\"} ")
        .append(value)
        .append('\n');
  }

  private static String label(Object value) {
    return value.toString().replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
  }
}
