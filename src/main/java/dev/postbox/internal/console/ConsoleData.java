package dev.postbox.internal.console;

import dev.postbox.BlockedKey;
import dev.postbox.OrderedParking;
import dev.postbox.Parked;
import dev.postbox.StoredSchedule;
import dev.postbox.internal.DialectChoice;
import dev.postbox.internal.dialect.Dialect;
import dev.postbox.internal.lane.LaneCounts;
import dev.postbox.internal.sql.Home;
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
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;

/**
 * What the console reads, as the maps its JSON and its pages are made of (one source, so a page and
 * its {@code /api/…} twin show the same data). Each read runs on a connection of its own, bounded
 * statements only. Thread-safe.
 */
final class ConsoleData {
  /** The most blocked keys the overview counts and the blocked-keys page lists. */
  static final int MAX_BLOCKED_KEYS = 100;

  /** The most connections the console uses at once, so that it never loads the database. */
  static final int MAX_CONNECTIONS = 4;

  private final ConsoleConfig config;
  private final DialectChoice dialects = new DialectChoice();
  private final Map<String, ConsoleSql> sql = new ConcurrentHashMap<>();
  private final Rates rates = new Rates();
  private final Semaphore connections = new Semaphore(MAX_CONNECTIONS);

  ConsoleData(ConsoleConfig config) {
    this.config = config;
  }

  /**
   * A connection of the console's own, on which every statement has a query timeout; at most {@link
   * #MAX_CONNECTIONS} at once, the other requests wait (a request holds one only while it reads or
   * acts, not while a slow client sends or receives).
   */
  Connection connection() throws SQLException {
    try {
      connections.acquire();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new SQLException("interrupted while waiting for one of the console's connections", e);
    }
    try {
      return TimedConnection.of(
          config.dataSource().getConnection(), ConsoleSql.TIMEOUT_SECONDS, connections::release);
    } catch (SQLException | RuntimeException e) {
      connections.release();
      throw e;
    }
  }

  /** The statements on {@code table} for the database of {@code c}. */
  ConsoleSql sql(Connection c, ConsoleTable table) throws SQLException {
    Dialect d = dialects.of(c);
    return sql.computeIfAbsent(
        table.name(), n -> new ConsoleSql(d, table.table(), config.showPayloads()));
  }

  Map<String, Object> overview() throws SQLException {
    Map<String, LaneCounts> counts = config.counts().get();
    List<Object> tables = new ArrayList<>();
    Map<String, Object> inbox = null;
    try (Connection c = connection()) {
      for (ConsoleTable t : config.tables()) {
        TableCounts n = sql(c, t).counts(c);
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("table", t.name());
        m.put("kind", t.kind());
        m.put("due", n.due());
        m.put("running", n.running());
        m.put("retrying", n.retrying());
        m.put("parked", n.parked());
        m.put("lagMillis", n.lag());
        m.put(
            "blockedKeys",
            blocksKeys(t) ? t.outbox().blockedKeys(c, MAX_BLOCKED_KEYS + 1).size() : 0);
        m.put("pausedNames", t.jobs() == null ? List.of() : t.jobs().paused(c));
        List<Object> leases = new ArrayList<>();
        for (LeaseHolder h : sql(c, t).leases(c)) {
          leases.add(
              map("instance", h.instance(), "leased", h.leased(), "soonestEnd", h.soonestEnd()));
        }
        m.put("leases", leases);
        LaneCounts lane = counts.get(t.name());
        m.put("dispatcher", lane == null ? null : rates.sample(t.name(), lane));
        tables.add(m);
      }
      if (config.inbox() != null) {
        inbox = inbox(c);
      }
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("tables", tables);
    out.put("inbox", inbox);
    out.put("countsReadAtMost", ConsoleSql.CAP - 1);
    out.put("actions", !config.readOnly());
    return out;
  }

  private Map<String, Object> inbox(Connection c) throws SQLException {
    String text =
        Home.text(Sql.CONSOLE_INBOX_COUNT, dialects.of(c))
            .replace("{table}", config.inbox().table());
    try (PreparedStatement ps = ConsoleSql.prepare(c, text);
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      Dialect d = dialects.of(c);
      Instant oldest = d.readInstant(rs, "oldest");
      Instant now = d.readInstant(rs, "db_now");
      return map(
          "table", config.inbox().table(),
          "processed", rs.getLong("processed"),
          "oldestAgeMillis", oldest == null ? Duration.ZERO : Duration.between(oldest, now),
          "retentionMillis", config.inbox().retention());
    }
  }

  static boolean blocksKeys(ConsoleTable t) {
    return t.outbox() != null
        && t.outbox().orderedByKey()
        && t.outbox().onParked() == OrderedParking.BLOCK_KEY;
  }

  /**
   * A page of parked or failing rows of {@code t} matching {@code filter}, after id {@code after}.
   */
  Map<String, Object> rows(ConsoleTable t, boolean parked, Filter filter, long after, int size)
      throws SQLException {
    try (Connection c = connection()) {
      ConsoleSql s = sql(c, t);
      List<RowView> rows = s.page(c, parked, filter, after, size);
      List<Object> list = new ArrayList<>();
      rows.forEach(r -> list.add(row(r)));
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("table", t.name());
      m.put("kind", t.kind());
      m.put("list", parked ? "parked" : "failing");
      m.put("filter", map("topic", filter.topic(), "key", filter.key(), "error", filter.error()));
      m.put("rows", list);
      m.put("size", size);
      m.put("next", rows.size() == size ? rows.getLast().id() : null);
      if (parked) { // what a bulk action on the filter would take: at most the cap, previewed
        int matching = s.parkedIds(c, filter, config.maxActionRows() + 1).size();
        m.put("matching", Math.min(matching, config.maxActionRows()));
        m.put("matchingMore", matching > config.maxActionRows());
        m.put("maxActionRows", config.maxActionRows());
      }
      m.put("actions", !config.readOnly());
      return m;
    }
  }

  private static Map<String, Object> row(RowView r) {
    Map<String, Object> m =
        map(
            "id", r.id(),
            "ref", r.ref(),
            "topic", r.topic(),
            "key", r.key(),
            "attempts", r.attempts());
    m.put("lastError", r.lastError());
    m.put("availableAt", r.availableAt());
    m.put("createdAt", r.createdAt());
    if (r.payload() != null) {
      m.put("payload", r.payload());
    }
    return m;
  }

  /**
   * The row of {@code t} whose ref the parameter {@code ref} names (an event id, or a job id), in
   * whatever state: {@code "row"} is null if there is none.
   */
  Map<String, Object> row(ConsoleTable t, Params p) throws SQLException {
    p.required(
        "ref"); // checked before a connection is taken: a bad ref is a 400 even if it is down
    Object ref =
        ConsoleSql.numericRef(t.table()) ? p.number("ref", 1, Long.MAX_VALUE, 0) : p.eventId("ref");
    try (Connection c = connection()) {
      ConsoleSql s = sql(c, t);
      Map<String, Object> m = map("table", t.name(), "kind", t.kind(), "ref", ref);
      m.put("row", s.row(c, ref));
      m.put("keepsDelivered", t.outbox() == null || !t.outbox().keepDelivered().isZero());
      return m;
    }
  }

  /** The keys of {@code t} blocked by a parked head, with the head and how many wait behind it. */
  Map<String, Object> blocked(ConsoleTable t) throws SQLException {
    List<Object> keys = new ArrayList<>();
    if (blocksKeys(t)) {
      try (Connection c = connection()) {
        for (BlockedKey k : t.outbox().blockedKeys(c, MAX_BLOCKED_KEYS)) {
          Parked h = k.head();
          Map<String, Object> head =
              map("id", h.id(), "ref", h.ref(), "topic", h.topic(), "attempts", h.attempts());
          head.put("lastError", h.lastError());
          head.put("createdAt", h.createdAt());
          keys.add(map("key", k.key(), "head", head, "waiting", k.waiting()));
        }
      }
    }
    Map<String, Object> m = map("table", t.name(), "keys", keys, "actions", !config.readOnly());
    m.put("blocksKeys", blocksKeys(t));
    return m;
  }

  /** The recurring schedules of every job table shown. */
  Map<String, Object> schedules() throws SQLException {
    List<Object> list = new ArrayList<>();
    try (Connection c = connection()) {
      for (ConsoleTable t : config.tables()) {
        if (t.jobs() == null) {
          continue;
        }
        for (StoredSchedule s : t.jobs().schedules(c)) {
          Map<String, Object> m =
              map(
                  "table",
                  t.name(),
                  "name",
                  s.name(),
                  "schedule",
                  s.schedule(),
                  "nextTick",
                  s.nextTick());
          m.put("lastTick", s.lastTick());
          m.put("lastRunId", s.lastRunId());
          m.put("lastRun", s.lastRun().name());
          list.add(m);
        }
      }
    }
    return map("schedules", list, "actions", !config.readOnly());
  }

  /** A mutable map of the pairs given, in order; values may be null. */
  static Map<String, Object> map(Object... pairs) {
    Map<String, Object> m = new LinkedHashMap<>();
    for (int i = 0; i < pairs.length; i += 2) {
      m.put((String) pairs[i], pairs[i + 1]);
    }
    return m;
  }
}
