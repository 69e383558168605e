package dev.postbox.internal.console;

import static dev.postbox.internal.console.Html.button;
import static dev.postbox.internal.console.Html.query;
import static dev.postbox.internal.console.Html.text;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The console's pages, each made from the same map as its {@code /api/…} twin. Action buttons are
 * written only when the console has an action token. Stateless.
 */
final class Pages {
  private Pages() {}

  /** A page of parked or failing rows, with its filter form and, for parked rows, bulk actions. */
  static String rows(Map<String, Object> d) {
    boolean actions = (Boolean) d.get("actions");
    boolean parked = d.get("list").equals("parked");
    boolean jobs = d.get("kind").equals("jobs");
    String table = (String) d.get("table");
    Map<?, ?> f = (Map<?, ?>) d.get("filter");
    StringBuilder b = new StringBuilder();
    b.append("<form method=\"get\" class=\"filter\"><input type=\"hidden\" name=\"table\" value=\"")
        .append(text(table))
        .append("\">")
        .append(field(jobs ? "Job name" : "Topic", "topic", f.get("topic")))
        .append(field(jobs ? "Dedupe key" : "Key", "key", f.get("key")))
        .append(field("Error contains", "error", f.get("error")))
        .append("<button type=\"submit\">Filter</button></form>");
    if (parked && actions && ((Number) d.get("matching")).intValue() > 0) {
      String n = d.get("matching") + ((Boolean) d.get("matchingMore") ? " (the cap) of more" : "");
      Map<String, Object> data =
          ConsoleData.map(
              "table",
              table,
              "topic",
              f.get("topic"),
              "key",
              f.get("key"),
              "error",
              f.get("error"));
      b.append("<p class=\"bulk\">")
          .append(button("Replay " + n + " matching", "replay-matching", data))
          .append(' ')
          .append(button("Discard " + n + " matching", "discard-matching", data))
          .append("</p>");
    }
    b.append("<table class=\"rows\"><tr><th>id</th><th>")
        .append(jobs ? "job" : "event id")
        .append("</th><th>")
        .append(jobs ? "name" : "topic")
        .append("</th><th>key</th>")
        .append("<th>attempts</th><th>last error</th><th>")
        .append(parked ? "parked" : "next attempt")
        .append("</th><th>created</th>")
        .append(actions ? "<th></th>" : "")
        .append("</tr>");
    for (Object o : (List<?>) d.get("rows")) {
      Map<?, ?> r = (Map<?, ?>) o;
      Map<String, Object> data = ConsoleData.map("table", table, "id", r.get("id"));
      b.append("<tr data-id=\"")
          .append(r.get("id"))
          .append("\"><td>")
          .append(r.get("id"))
          .append("</td><td>")
          .append(text(r.get("ref")))
          .append("</td><td>")
          .append(text(r.get("topic")))
          .append("</td><td>")
          .append(text(r.get("key")))
          .append("</td><td>")
          .append(r.get("attempts"))
          .append("</td><td class=\"error\">")
          .append(text(r.get("lastError")))
          .append(r.containsKey("payload") ? "<pre>" + text(r.get("payload")) + "</pre>" : "")
          .append("</td><td>")
          .append(text(r.get("availableAt")))
          .append("</td><td>")
          .append(text(r.get("createdAt")))
          .append("</td>");
      if (actions) {
        b.append("<td>");
        if (parked) {
          b.append(button("Replay", "replay", data))
              .append(' ')
              .append(button("Discard", "discard", data));
        } else if (jobs) {
          b.append(button("Cancel", "cancel", data));
        }
        b.append("</td>");
      }
      b.append("</tr>");
    }
    b.append("</table>");
    if (d.get("next") != null) {
      b.append("<p><a class=\"next\" href=\"")
          .append(d.get("list"))
          .append("?table=")
          .append(query(table));
      for (String k : List.of("topic", "key", "error")) {
        if (f.get(k) != null) {
          b.append("&amp;").append(k).append('=').append(query(f.get(k)));
        }
      }
      b.append("&amp;size=").append(d.get("size"));
      b.append("&amp;after=").append(d.get("next")).append("\">Next page</a></p>");
    }
    return Html.page(
        (parked ? "Parked rows of " : "Failing rows of ") + table, actions, b.toString());
  }

  private static String field(String label, String name, Object value) {
    return "<label>"
        + label
        + " <input name=\""
        + name
        + "\" value=\""
        + text(value)
        + "\"></label> ";
  }

  static String blocked(Map<String, Object> d) {
    boolean actions = (Boolean) d.get("actions");
    String table = (String) d.get("table");
    StringBuilder b = new StringBuilder();
    if (!(Boolean) d.get("blocksKeys")) {
      b.append("<p>This table's parked rows do not block their keys.</p>");
    }
    b.append("<table class=\"blocked\"><tr><th>key</th><th>head id</th><th>event id</th>")
        .append("<th>attempts</th><th>last error</th><th>waiting behind</th>")
        .append(actions ? "<th></th>" : "")
        .append("</tr>");
    for (Object o : (List<?>) d.get("keys")) {
      Map<?, ?> k = (Map<?, ?>) o;
      Map<?, ?> h = (Map<?, ?>) k.get("head");
      Map<String, Object> data = ConsoleData.map("table", table, "id", h.get("id"));
      b.append("<tr><td>")
          .append(text(k.get("key")))
          .append("</td><td>")
          .append(h.get("id"))
          .append("</td><td>")
          .append(text(h.get("ref")))
          .append("</td><td>")
          .append(h.get("attempts"))
          .append("</td><td class=\"error\">")
          .append(text(h.get("lastError")))
          .append("</td><td>")
          .append(k.get("waiting"))
          .append("</td>");
      if (actions) {
        b.append("<td>")
            .append(button("Replay head", "replay", data))
            .append(' ')
            .append(button("Discard head", "discard", data))
            .append("</td>");
      }
      b.append("</tr>");
    }
    b.append("</table>");
    return Html.page("Blocked keys of " + table, actions, b.toString());
  }

  static String schedules(Map<String, Object> d) {
    boolean actions = (Boolean) d.get("actions");
    StringBuilder b =
        new StringBuilder("<table class=\"schedules\"><tr><th>table</th><th>name</th>")
            .append("<th>schedule</th><th>next tick</th><th>last tick</th><th>last run</th>")
            .append(actions ? "<th></th>" : "")
            .append("</tr>");
    for (Object o : (List<?>) d.get("schedules")) {
      Map<?, ?> s = (Map<?, ?>) o;
      b.append("<tr><td>")
          .append(text(s.get("table")))
          .append("</td><td>")
          .append(text(s.get("name")))
          .append("</td><td>")
          .append(text(s.get("schedule")))
          .append("</td><td>")
          .append(text(s.get("nextTick")))
          .append("</td><td>")
          .append(text(s.get("lastTick")))
          .append("</td><td>")
          .append(text(s.get("lastRun").toString().toLowerCase(Locale.ROOT)))
          .append(s.get("lastRunId") == null ? "" : " (job " + s.get("lastRunId") + ")")
          .append("</td>");
      if (actions) {
        b.append("<td>")
            .append(
                button(
                    "Run now",
                    "run-now",
                    ConsoleData.map("table", s.get("table"), "name", s.get("name"))))
            .append("</td>");
      }
      b.append("</tr>");
    }
    b.append("</table>");
    return Html.page("Recurring schedules", actions, b.toString());
  }

  /** One row looked up by its ref, in whatever state, or a sentence saying why there is none. */
  static String row(Map<String, Object> d) {
    Map<?, ?> r = (Map<?, ?>) d.get("row");
    StringBuilder b = new StringBuilder();
    if (r == null) {
      b.append("<p class=\"missing\">No row of ")
          .append(text(d.get("table")))
          .append(" has this ")
          .append(d.get("kind").equals("jobs") ? "id" : "event id")
          .append(": never added, or finished and deleted")
          .append(
              (Boolean) d.get("keepsDelivered")
                  ? "."
                  : " (this outbox deletes a row once delivered: keepDelivered keeps them).")
          .append("</p>");
    } else {
      b.append("<table class=\"row\">");
      r.forEach(
          (k, v) ->
              b.append("<tr><th>")
                  .append(text(k))
                  .append("</th><td class=\"")
                  .append(text(k))
                  .append("\">")
                  .append(text(v))
                  .append("</td></tr>"));
      b.append("</table>");
    }
    return Html.page(d.get("table") + " " + d.get("ref"), false, b.toString());
  }

  static String error(int status, String message) {
    return Html.page("Error " + status, false, "<p class=\"error\">" + text(message) + "</p>");
  }
}
