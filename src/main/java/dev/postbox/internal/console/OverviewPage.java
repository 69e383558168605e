package dev.postbox.internal.console;

import static dev.postbox.internal.console.Html.button;
import static dev.postbox.internal.console.Html.count;
import static dev.postbox.internal.console.Html.query;
import static dev.postbox.internal.console.Html.text;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The console's overview page, made from the same map as {@code /api/overview}: per table its
 * counts, this JVM's dispatcher, the lease holders, paused names and a lookup by event id or job
 * id. Stateless.
 */
final class OverviewPage {
  private OverviewPage() {}

  static String render(Map<String, Object> d) {
    boolean actions = (Boolean) d.get("actions");
    long cap = ((Number) d.get("countsReadAtMost")).longValue();
    StringBuilder b = new StringBuilder();
    for (Object o : (List<?>) d.get("tables")) {
      Map<?, ?> t = (Map<?, ?>) o;
      String table = (String) t.get("table");
      String q = "?table=" + query(table);
      b.append("<section class=\"table\" data-table=\"")
          .append(text(table))
          .append("\"><h2>")
          .append(text(table))
          .append(" <small>")
          .append(text(t.get("kind")))
          .append("</small></h2>")
          .append("<table class=\"counts\"><tr><th>due</th><th>running</th><th>retrying</th>")
          .append("<th>parked</th><th>blocked keys</th><th>lag</th></tr><tr>")
          .append(cell("due", count(t.get("due"), cap)))
          .append(cell("running", count(t.get("running"), cap)))
          .append(
              cell(
                  "retrying",
                  "<a href=\"failing" + q + "\">" + count(t.get("retrying"), cap) + "</a>"))
          .append(
              cell("parked", "<a href=\"parked" + q + "\">" + count(t.get("parked"), cap) + "</a>"))
          .append(
              cell(
                  "blocked-keys",
                  t.get("kind").equals("jobs") // a job has no key to block
                      ? "–"
                      : "<a href=\"blocked"
                          + q
                          + "\">"
                          + count(t.get("blockedKeys"), ConsoleData.MAX_BLOCKED_KEYS)
                          + "</a>"))
          .append(cell("lag", age((Duration) t.get("lagMillis"))))
          .append("</tr></table>");
      Map<?, ?> lane = (Map<?, ?>) t.get("dispatcher");
      if (lane != null) {
        b.append("<p class=\"dispatcher\">This JVM's dispatcher: ")
            .append(lane.get("delivered"))
            .append(" delivered, ")
            .append(lane.get("failed"))
            .append(" failed attempts, ")
            .append(lane.get("parked"))
            .append(" parked since start; ")
            .append(lane.get("deliveredInWindow"))
            .append(" delivered and ")
            .append(lane.get("failedInWindow"))
            .append(" failed in the last ")
            .append(lane.get("windowSeconds"))
            .append(" s.</p>");
      }
      List<?> leases = (List<?>) t.get("leases");
      if (!leases.isEmpty()) {
        b.append("<table class=\"leases\"><tr><th>instance holding leases</th><th>rows</th>")
            .append("<th>soonest lease end</th></tr>");
        for (Object l : leases) {
          Map<?, ?> h = (Map<?, ?>) l;
          b.append("<tr><td>")
              .append(text(h.get("instance")))
              .append("</td><td>")
              .append(count(h.get("leased"), cap))
              .append("</td><td>")
              .append(text(h.get("soonestEnd")))
              .append("</td></tr>");
        }
        b.append("</table>");
      }
      b.append("<form method=\"get\" action=\"row\" class=\"lookup\"><input type=\"hidden\"")
          .append(" name=\"table\" value=\"")
          .append(text(table))
          .append("\"><label>")
          .append(t.get("kind").equals("jobs") ? "Job id" : "Event id")
          .append(" <input name=\"ref\" maxlength=\"128\"></label> <button type=\"submit\">")
          .append("Look up</button></form>");
      if (t.get("kind").equals("jobs")) {
        b.append(paused(table, (List<?>) t.get("pausedNames"), actions));
      }
      b.append("</section>");
    }
    Map<?, ?> inbox = (Map<?, ?>) d.get("inbox");
    if (inbox != null) {
      b.append("<section class=\"inbox\"><h2>")
          .append(text(inbox.get("table")))
          .append(" <small>inbox</small></h2><p>")
          .append(count(inbox.get("processed"), cap))
          .append(" event ids kept; the oldest is ")
          .append(age((Duration) inbox.get("oldestAgeMillis")))
          .append(" old (retention ")
          .append(age((Duration) inbox.get("retentionMillis")))
          .append(").</p></section>");
    }
    return Html.page("Overview", actions, b.toString());
  }

  private static String paused(String table, List<?> names, boolean actions) {
    StringBuilder b = new StringBuilder("<p class=\"paused\">Paused job names: ");
    if (names.isEmpty()) {
      b.append("none.");
    }
    for (Object n : names) {
      b.append("<span class=\"name\">").append(text(n)).append("</span> ");
      if (actions) {
        b.append(button("Resume", "resume", ConsoleData.map("table", table, "name", n)))
            .append(' ');
      }
    }
    b.append("</p>");
    if (actions) {
      String input = "pause-" + table;
      b.append("<p><label>Pause job name <input id=\"")
          .append(text(input))
          .append("\" maxlength=\"200\"></label> ")
          .append(button("Pause", "pause", ConsoleData.map("table", table, "input", input)))
          .append("</p>");
    }
    return b.toString();
  }

  private static String cell(String name, String html) {
    return "<td class=\"" + name + "\">" + html + "</td>";
  }

  static String age(Duration d) {
    if (d.toMillis() < 1000) {
      return d.toMillis() + " ms";
    }
    long s = d.toSeconds();
    return s < 120
        ? s + " s"
        : s < 7200 ? s / 60 + " min" : s < 172_800 ? s / 3600 + " h" : s / 86_400 + " days";
  }
}
