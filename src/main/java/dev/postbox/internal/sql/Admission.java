package dev.postbox.internal.sql;

import dev.postbox.internal.dialect.Dialect;
import dev.postbox.internal.jdbc.Jdbc;
import dev.postbox.internal.jdbc.SqlText;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The admission of a job table's grouped and limited jobs (docs/jobs.md#limits-and-groups). Such a
 * job is enqueued waiting (state 3, or 5 until due) in the {@link FairOrder}; an admission makes
 * waiting jobs claimable (state 0, keeping their fair_tag) in that order, as long as no group holds
 * more than {@link Limits#perGroup} admitted jobs and no limited name more than its limit, and not
 * more than a batch ahead of the claims. The claims then take admitted jobs like any other: a job
 * admitted runs, so counting admitted jobs counts running ones. A job whose lease ends without
 * finishing it (a failure, a snooze, a release) goes back to wait, so the slot it held is free.
 * Admissions hold the flow table's 'gate' row while they count and admit, one at a time across
 * dispatchers: the count sees every admission before it, so limits are exact.
 *
 * <p>Shared by a lane's claim loops; thread-safe. Each admission runs in its own transaction on the
 * connection of a claim, before the claim.
 */
public final class Admission {
  private final String table;
  private final Limits limits;
  private final List<String> begin;
  private final String any;
  private final String gate;
  private final String gateRow;
  private final String promote;
  private final String promoteFrom;
  private final String unclaimed;
  private final String unadmitPaused;
  private final String admitted;
  private final String window;
  private final String admit;
  private final String admitFirst;
  private final int ahead;

  /**
   * The admission of {@code table}'s jobs on {@code dialect}'s database, admitting up to a batch of
   * {@code batchSize} ahead of the claims.
   */
  public Admission(QueueTable<?> table, Dialect dialect, int batchSize) {
    this.table = table.name();
    this.limits = table.limits();
    this.begin = Home.of(dialect.database()).beginClaim();
    this.ahead = batchSize;
    this.any = fill(Sql.ADMISSION_ANY, table, dialect);
    this.gate = fill(Sql.ADMISSION_GATE, table, dialect);
    this.gateRow = fill(Sql.ADMISSION_GATE_ROW, table, dialect);
    this.promote = fill(Sql.ADMISSION_PROMOTE, table, dialect);
    this.promoteFrom = fill(Sql.ADMISSION_PROMOTE_FROM, table, dialect);
    this.unclaimed = fill(Sql.ADMISSION_UNCLAIMED, table, dialect);
    this.unadmitPaused = fill(Sql.ADMISSION_UNADMIT_PAUSED, table, dialect);
    this.admitted = fill(Sql.ADMISSION_ADMITTED, table, dialect);
    this.window =
        fill(Sql.ADMISSION_WINDOW, table, dialect)
            .replace("{window}", Integer.toString(2 * batchSize));
    this.admit = fill(Sql.ADMISSION_ADMIT, table, dialect);
    this.admitFirst = fill(Sql.ADMISSION_ADMIT_FIRST, table, dialect);
  }

  String table() {
    return table;
  }

  /** The statements an admission runs, by name in its order (the rendered catalogue lists them). */
  public Map<String, String> statements() {
    Map<String, String> all = new LinkedHashMap<>();
    all.put("admission-any", any);
    all.put("admission-gate", gate);
    all.put("admission-gate-row", gateRow);
    all.put("admission-unadmit-paused", unadmitPaused);
    all.put("admission-admitted", admitted);
    all.put("admission-unclaimed", unclaimed);
    all.put("admission-window", window);
    all.put("admission-admit-first", admitFirst);
    all.put("admission-admit", admit);
    all.put("admission-promote-from", promoteFrom);
    all.put("admission-promote", promote);
    return all;
  }

  private static String fill(Sql sql, QueueTable<?> table, Dialect dialect) {
    String text =
        Home.common(sql)
            .replace("{filter}", table.clauses().claimFilter())
            .replace("{flow}", table.name() + "_flow")
            .replace("{table}", table.name());
    return Home.clock(text, dialect);
  }

  /**
   * Admits waiting jobs, in its own transaction on {@code c} (in auto-commit mode; left so).
   *
   * @return how many jobs wait for admission in the window it looked at, admitted or not (0: none
   *     waits)
   * @throws SQLException if a statement fails; then nothing was admitted
   */
  public int admit(Connection c) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(any);
        ResultSet rs = ps.executeQuery()) {
      if (!rs.next()) {
        return 0;
      }
    }
    boolean begun = !begin.isEmpty();
    try (Statement s = c.createStatement()) {
      if (begun) {
        for (String statement : begin) {
          s.execute(statement);
        }
      } else {
        c.setAutoCommit(false);
      }
      try {
        if (s.executeUpdate(gate) == 0) {
          addGateRow(c, s, begun);
        }
        int waiting = admitWaiting(c);
        if (begun) {
          s.execute(Jdbc.COMMIT);
        } else {
          c.commit();
        }
        return waiting;
      } catch (Throwable e) { // even an Error must not commit or leave a transaction open
        try {
          if (begun) {
            s.execute(Jdbc.ROLLBACK);
          } else {
            c.rollback();
          }
        } catch (SQLException rollbackFailure) {
          e.addSuppressed(rollbackFailure);
        }
        throw e;
      }
    } finally {
      if (!begun) {
        c.setAutoCommit(true);
      }
    }
  }

  /**
   * The first admission on a table: inserts the gate row and takes it. A concurrent first
   * admission's insert fails, which on PostgreSQL aborts the transaction: it is rolled back and
   * begun again, and the row then exists.
   */
  private void addGateRow(Connection c, Statement s, boolean begun) throws SQLException {
    try {
      s.executeUpdate(gateRow);
    } catch (SQLException duplicate) {
      if (begun) {
        s.execute(Jdbc.ROLLBACK);
        for (String statement : begin) {
          s.execute(statement);
        }
      } else {
        c.rollback();
      }
      if (s.executeUpdate(gate) == 0) {
        throw duplicate;
      }
    }
  }

  /**
   * Under the gate: counts the admitted jobs, admits waiting ones in fair order, then promotes the
   * jobs now due to wait at the front of the order (the place of the first job in the window).
   */
  private int admitWaiting(Connection c) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(unadmitPaused)) {
      ps.executeUpdate();
    }
    Map<String, Integer> perGroup = new HashMap<>();
    Map<String, Integer> perName = new HashMap<>();
    try (PreparedStatement ps = c.prepareStatement(admitted);
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        String group = rs.getString(1);
        int count = rs.getInt(3);
        if (group != null) {
          perGroup.merge(group, count, Integer::sum);
        }
        perName.merge(rs.getString(2), count, Integer::sum);
      }
    }
    int room = ahead - (int) count(c, unclaimed);
    if (room < ahead / 2) {
      return 1; // over half a batch admitted and not claimed yet: admit when the claims catch up
    }
    List<Long> chosen = new ArrayList<>();
    List<String> chosenGroups = new ArrayList<>();
    Map<String, Integer> inWindow = new HashMap<>();
    int waiting = 0;
    long front = 0;
    try (PreparedStatement ps = c.prepareStatement(window);
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        if (waiting++ == 0) {
          front = rs.getLong(4);
        }
        String group = rs.getString(2);
        String name = rs.getString(3);
        String key = group != null ? "g:" + group : "n:" + name;
        inWindow.merge(key, 1, Integer::sum);
        if (chosen.size() < room && fits(group, name, perGroup, perName)) {
          chosen.add(rs.getLong(1));
          chosenGroups.add(key);
          if (group != null) {
            perGroup.merge(group, 1, Integer::sum);
          }
          perName.merge(name, 1, Integer::sum);
        }
      }
    }
    List<Long> first = new ArrayList<>();
    List<Long> rest = new ArrayList<>();
    for (int i = 0; i < chosen.size(); i++) {
      (inWindow.get(chosenGroups.get(i)) == 1 ? first : rest).add(chosen.get(i));
    }
    admit(c, admitFirst, first, true);
    admit(c, admit, rest, false);
    Long from = longOrNull(c, promoteFrom);
    if (from != null) {
      try (PreparedStatement ps = c.prepareStatement(promote)) {
        ps.setLong(1, front - from);
        waiting += ps.executeUpdate();
      }
    }
    return waiting;
  }

  private static long count(Connection c, String sql) throws SQLException {
    Long n = longOrNull(c, sql);
    return n == null ? 0 : n;
  }

  /** The one value {@code sql} reads, null if it is NULL. */
  private static Long longOrNull(Connection c, String sql) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql);
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      long value = rs.getLong(1);
      return rs.wasNull() ? null : value;
    }
  }

  /** Runs {@code sql}, an admission of {@code ids}; {@code first}: due a second before now. */
  private static void admit(Connection c, String sql, List<Long> ids, boolean first)
      throws SQLException {
    if (ids.isEmpty()) {
      return;
    }
    try (PreparedStatement ps =
        c.prepareStatement(sql.replace("{ids}", SqlText.marks(ids.size())))) {
      int p = 1;
      if (first) {
        ps.setLong(p++, -1_000);
      }
      QueueSql.bindIds(ps, p, ids);
      ps.executeUpdate();
    }
  }

  /** Whether one more job named {@code name} in {@code group} keeps within the limits. */
  private boolean fits(
      String group, String name, Map<String, Integer> perGroup, Map<String, Integer> perName) {
    if (group != null
        && limits.perGroup() > 0
        && perGroup.getOrDefault(group, 0) >= limits.perGroup()) {
      return false;
    }
    Integer max = limits.perName().get(name);
    return max == null || perName.getOrDefault(name, 0) < max;
  }
}
