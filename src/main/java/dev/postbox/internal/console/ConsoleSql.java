package dev.postbox.internal.console;

import dev.postbox.internal.dialect.Dialect;
import dev.postbox.internal.jdbc.SqlText;
import dev.postbox.internal.sql.Home;
import dev.postbox.internal.sql.QueueTable;
import dev.postbox.internal.sql.Sql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The console's statements on one queue table of one database, filled in, and the code that binds
 * and runs them on the caller's connection; every statement is bounded by a LIMIT and by {@link
 * #TIMEOUT_SECONDS}. Immutable and thread-safe.
 */
final class ConsoleSql {
  /** How long any console statement may run before the driver cancels it. */
  static final int TIMEOUT_SECONDS = 5;

  /**
   * The most characters of a payload a list shows: a page of 500 rows of 1 MB payloads would be
   * gigabytes of text in the application's memory.
   */
  static final int MAX_PAYLOAD_SHOWN = 4096;

  /** A count that read this many rows is shown as "more than {@code CAP - 1}". */
  static final long CAP = 10_001;

  private final Dialect dialect;
  private final String counts;
  private final String leases;
  private final String parkedPage;
  private final String failingPage;
  private final String parkedIds;
  private final String replayIds;
  private final String discardIds;
  private final String row;
  private final String errorContains;
  private final QueueTable<?> table;

  private final boolean payloads;

  /** The statements on {@code table}; {@code payloads}: the lists read the rows' payloads. */
  ConsoleSql(Dialect dialect, QueueTable<?> table, boolean payloads) {
    this.dialect = dialect;
    this.table = table;
    this.payloads = payloads;
    this.counts = fill(Sql.CONSOLE_COUNTS);
    this.leases = fill(Sql.CONSOLE_LEASES);
    this.parkedPage = fill(Sql.CONSOLE_PARKED_PAGE);
    this.failingPage = fill(Sql.CONSOLE_FAILING_PAGE);
    this.parkedIds = fill(Sql.CONSOLE_PARKED_IDS);
    this.replayIds = fill(Sql.CONSOLE_REPLAY_IDS);
    this.discardIds = fill(Sql.CONSOLE_DISCARD_IDS);
    this.row = fill(Sql.CONSOLE_ROW);
    this.errorContains = Home.text(Sql.CONSOLE_ERROR_CONTAINS, dialect);
  }

  private String fill(Sql sql) {
    return Home.text(sql, dialect)
        .replace("{table}", table.name())
        .replace("{pending}", table.clauses().pending())
        .replace("{replayedState}", table.clauses().replayedState())
        .replace("{ref}", table.columns().ref())
        .replace("{topic}", table.columns().topic())
        .replace("{listedKey}", table.columns().listedKey())
        // one character more than is shown, to tell a cut payload from one of exactly the limit
        .replace(
            "{payload}",
            payloads ? ", SUBSTR(payload, 1, " + (MAX_PAYLOAD_SHOWN + 1) + ") AS payload" : "");
  }

  /** The overview's counts of the table, each capped at {@link #CAP}. */
  TableCounts counts(Connection c) throws SQLException {
    try (PreparedStatement ps = prepare(c, counts);
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      Instant oldest = dialect.readInstant(rs, "oldest_due");
      Instant now = dialect.readInstant(rs, "db_now");
      Duration lag = oldest == null ? Duration.ZERO : Duration.between(oldest, now);
      return new TableCounts(
          rs.getLong("due"),
          rs.getLong("running"),
          rs.getLong("retrying"),
          rs.getLong("parked"),
          lag.isNegative() ? Duration.ZERO : lag);
    }
  }

  /** The instances holding leases on the table, read from at most {@link #CAP} leased rows. */
  List<LeaseHolder> leases(Connection c) throws SQLException {
    List<LeaseHolder> holders = new ArrayList<>();
    try (PreparedStatement ps = prepare(c, leases);
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        holders.add(
            new LeaseHolder(
                rs.getString("leased_by"),
                rs.getLong("leased"),
                dialect.readInstant(rs, "soonest_end")));
      }
    }
    return holders;
  }

  /** A page of parked ({@code parked}) or failing rows matching {@code filter}, after an id. */
  List<RowView> page(Connection c, boolean parked, Filter filter, long after, int size)
      throws SQLException {
    // the failing rows are filtered outside the subquery that bounds them, by its column names
    String match =
        parked
            ? filter.sql(table, errorContains)
            : filter.sql("topic", "listed_key", errorContains);
    String template = parked ? parkedPage : failingPage;
    try (PreparedStatement ps = prepare(c, template.replace("{match}", match))) {
      int i = filter.bind(ps, 1);
      ps.setLong(i++, after);
      ps.setInt(i, size);
      List<RowView> rows = new ArrayList<>();
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          rows.add(
              new RowView(
                  rs.getLong("id"),
                  rs.getString("ref"),
                  rs.getString("topic"),
                  rs.getString("listed_key"),
                  rs.getInt("attempts"),
                  rs.getString("last_error"),
                  dialect.readInstant(rs, "available_at"),
                  dialect.readInstant(rs, "created_at"),
                  payloads ? shown(rs.getString("payload")) : null));
        }
      }
      return rows;
    }
  }

  /** The ids of up to {@code limit} parked rows matching {@code filter}, oldest first. */
  List<Long> parkedIds(Connection c, Filter filter, int limit) throws SQLException {
    try (PreparedStatement ps =
        prepare(c, parkedIds.replace("{match}", filter.sql(table, errorContains)))) {
      ps.setInt(filter.bind(ps, 1), limit);
      List<Long> ids = new ArrayList<>();
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          ids.add(rs.getLong(1));
        }
      }
      return ids;
    }
  }

  /** {@code payload} as a list shows it: cut, and saying so, if longer than it shows. */
  private static String shown(String payload) {
    return payload.length() <= MAX_PAYLOAD_SHOWN
        ? payload
        : payload.substring(0, MAX_PAYLOAD_SHOWN)
            + "… (cut at "
            + MAX_PAYLOAD_SHOWN
            + " characters)";
  }

  /** Replays ({@code replay}) or discards the parked rows among {@code ids}; returns how many. */
  int act(Connection c, boolean replay, List<Long> ids) throws SQLException {
    int changed = 0;
    for (int from = 0; from < ids.size(); from += 500) { // IN lists of bounded length
      List<Long> chunk = ids.subList(from, Math.min(ids.size(), from + 500));
      String template = replay ? replayIds : discardIds;
      try (PreparedStatement ps =
          prepare(c, template.replace("{ids}", SqlText.marks(chunk.size())))) {
        for (int i = 0; i < chunk.size(); i++) {
          ps.setLong(i + 1, chunk.get(i));
        }
        changed += ps.executeUpdate();
      }
    }
    return changed;
  }

  /**
   * Whether a row's ref in {@code table} is its numeric id (a job's), not a string (an event id).
   */
  static boolean numericRef(QueueTable<?> table) {
    return table.columns().ref().equals("id");
  }

  /** The row whose ref is {@code ref} (a {@code Long} for a job), with its state; null if none. */
  Map<String, Object> row(Connection c, Object ref) throws SQLException {
    try (PreparedStatement ps = prepare(c, row)) {
      ps.setObject(1, ref);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return null;
        }
        int state = rs.getInt("state");
        Instant at = dialect.readInstant(rs, "available_at");
        boolean leased =
            rs.getString("leased_by") != null && at.isAfter(dialect.readInstant(rs, "db_now"));
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", rs.getLong("id"));
        m.put("ref", rs.getString("ref"));
        m.put("topic", rs.getString("topic"));
        m.put("key", rs.getString("listed_key"));
        m.put(
            "state",
            switch (state) {
              case 1 -> "done";
              case 2 -> "parked";
              case 3, 5 -> "waiting for admission";
              default -> leased ? "running" : "pending";
            });
        m.put("attempts", rs.getInt("attempts"));
        m.put("lastError", rs.getString("last_error"));
        m.put(state == 1 ? "finishedAt" : state == 2 ? "parkedAt" : "dueAt", at);
        m.put("createdAt", dialect.readInstant(rs, "created_at"));
        return m;
      }
    }
  }

  static PreparedStatement prepare(Connection c, String sql) throws SQLException {
    PreparedStatement ps = c.prepareStatement(sql);
    ps.setQueryTimeout(TIMEOUT_SECONDS);
    return ps;
  }

  /** Every statement, filled in, for the rendered-SQL test; a filter of all three conditions. */
  Map<String, String> statements() {
    Map<String, String> all = new LinkedHashMap<>();
    String match = new Filter("a", "b", "c").sql(table, errorContains);
    all.put("counts", counts);
    all.put("leases", leases);
    all.put("parked-page", parkedPage.replace("{match}", match));
    all.put(
        "failing-page",
        failingPage.replace(
            "{match}", new Filter("a", "b", "c").sql("topic", "listed_key", errorContains)));
    all.put("parked-ids", parkedIds.replace("{match}", match));
    all.put("replay-ids", replayIds.replace("{ids}", "?, ?, ?"));
    all.put("discard-ids", discardIds.replace("{ids}", "?, ?, ?"));
    all.put("row", row);
    return all;
  }
}
