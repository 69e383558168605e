package dev.postbox.internal.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postbox.Database;
import dev.postbox.internal.dialect.Dialects;
import dev.postbox.testing.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * InnoDB locks every row a locking read scans: the claim's unlocked read of due ids must be served
 * by the claim index alone, with no filesort, and its locking step by primary key lookups of those
 * ids only, or one claimer locks the whole range. Proven with EXPLAIN on MariaDB.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MariaDbClaimPlanTest {
  private TestDatabase db;

  @BeforeAll
  void open() {
    db = TestDatabase.mariadb();
    db.resetSchema();
  }

  @AfterAll
  void close() {
    db.close();
  }

  @Test
  void outboxClaimUsesTheClaimIndexWithoutFilesort() throws Exception {
    fill(
        "INSERT INTO postbox_outbox (event_id, topic, payload, available_at, created_at, state)"
            + " VALUES (?, 't', '{}', UTC_TIMESTAMP(6), UTC_TIMESTAMP(6), ?)",
        10);
    assertServedByIndex(
        "postbox_outbox", "event_id, topic, msg_key, payload, headers", "postbox_outbox_claim");
  }

  @Test
  void jobClaimUsesTheClaimIndexWithoutFilesort() throws Exception {
    fill(
        "INSERT INTO postbox_jobs (name, payload, max_attempts, available_at, created_at, state)"
            + " VALUES (?, '{}', 5, UTC_TIMESTAMP(6), UTC_TIMESTAMP(6), ?)",
        2);
    assertServedByIndex("postbox_jobs", "name, payload, max_attempts", "postbox_jobs_claim");
  }

  @Test
  void jobClaimWalksTheClaimIndexAndChecksDedupeKeysOfStartedJobsByTheirIndex() throws Exception {
    // jobs whose dedupe key a started job holds wait: one probe of running_key per candidate; the
    // paused names are read once per claim, by the flow table's primary key
    QueueSql sql =
        QueueSql.of(
            Dialects.of(Database.MYSQL),
            new QueueTable<>(
                "postbox_jobs",
                new QueueTable.Columns("name, payload, max_attempts", "id", "name", "", "NULL"),
                QueueTable.Clauses.NONE.narrowed(JOBS_CLAIM_FILTER),
                null,
                null,
                null),
            100);
    try (Connection c = db.dataSource().getConnection();
        Statement s = c.createStatement()) {
      s.execute("ANALYZE TABLE postbox_jobs");
      List<Map<String, String>> steps = steps(s, "EXPLAIN " + sql.candidates(0, null));
      assertEquals(3, steps.size(), "candidates plan: " + steps);
      assertEquals("postbox_jobs_claim", steps.get(0).get("key"), "candidates plan: " + steps);
      assertFalse(steps.get(0).get("Extra").contains("filesort"), "candidates plan: " + steps);
      assertEquals("postbox_jobs_running_key", step(steps, "running_job").get("key"));
      Map<String, String> flow = step(steps, "postbox_jobs_flow");
      assertEquals("PRIMARY", flow.get("key"), "candidates plan: " + steps);
      assertEquals("MATERIALIZED", flow.get("select_type"), "candidates plan: " + steps);
    }
  }

  @Test
  void orderedClaimChecksEachCandidateIsTheFirstPendingRowOfItsKeyByOneProbeAndWalksKeysLoosely()
      throws Exception {
    try (Connection c = db.dataSource().getConnection();
        var ps =
            c.prepareStatement(
                "INSERT INTO postbox_outbox"
                    + " (event_id, topic, msg_key, payload, available_at, created_at)"
                    + " VALUES (?, 't', ?, '{}', UTC_TIMESTAMP(6), UTC_TIMESTAMP(6))")) {
      for (int i = 0; i < 5000; i++) {
        ps.setString(1, "k" + i);
        ps.setString(2, "key" + (i % 50));
        ps.addBatch();
      }
      ps.executeBatch();
    }
    QueueSql sql = OutboxStatements.of(Database.MYSQL, new KeyOrder("msg_key", true), 100);
    try (Connection c = db.dataSource().getConnection();
        Statement s = c.createStatement()) {
      s.execute("ANALYZE TABLE postbox_outbox");
      // the candidates by the claim index; the head check, under the locks, by the key index
      List<Map<String, String>> steps = steps(s, "EXPLAIN " + sql.candidates(0, null));
      assertEquals(1, steps.size(), "candidates plan: " + steps);
      assertEquals("postbox_outbox_claim", steps.get(0).get("key"), "candidates plan: " + steps);
      assertFalse(steps.get(0).get("Extra").contains("filesort"), "candidates plan: " + steps);
      // each key has 100 pending rows: a head's check reads one entry of the key index, not 100
      List<String> heads = new ArrayList<>();
      try (ResultSet rs =
          s.executeQuery(
              "SELECT MIN(id) FROM postbox_outbox WHERE msg_key IS NOT NULL"
                  + " GROUP BY msg_key ORDER BY 1 LIMIT 3")) {
        while (rs.next()) {
          heads.add(rs.getString(1));
        }
      }
      heads.add("100");
      List<Map<String, String>> lock =
          steps(
              s,
              "ANALYZE "
                  + dev.postbox.internal.jdbc.SqlText.inline(sql.lockCandidates(3, null), heads));
      assertEquals(3, lock.size(), "lock plan: " + lock);
      assertEquals("PRIMARY", lock.get(0).get("key"), "lock plan: " + lock);
      Map<String, String> first = step(lock, "postbox_first");
      assertEquals("postbox_outbox_key", first.get("key"), "key check plan: " + lock);
      assertEquals("1.00", first.get("r_rows"), "entries a head's check reads: " + lock);
      assertFalse(first.get("Extra").contains("filesort"), "key check plan: " + lock);
      // the parked check: a probe of an index, whichever the statistics make cheaper
      assertEquals("ref", step(lock, "postbox_prior").get("type"), "parked check plan: " + lock);
      // the walk over keys: a loose index scan, one probe per key, not every row of each key
      List<Map<String, String>> walk =
          steps(
              s,
              "EXPLAIN "
                  + dev.postbox.internal.jdbc.SqlText.inline(
                      sql.text(Sql.WALK_KEYS), List.of("'key1'", "100")));
      boolean loose = false;
      for (Map<String, String> step : walk) {
        loose |=
            "postbox_outbox_key".equals(step.get("key"))
                && step.get("Extra").contains("Using index for group-by");
      }
      assertTrue(loose, "walk plan: " + walk);
      List<Map<String, String>> runs =
          steps(
              s,
              "EXPLAIN "
                  + dev.postbox.internal.jdbc.SqlText.inline(
                      sql.followers(1), List.of("'key1'", "0", "10")));
      boolean keyIndex = false;
      for (Map<String, String> step : runs) {
        keyIndex |= "postbox_outbox_key".equals(step.get("key"));
        assertFalse(step.get("Extra").contains("filesort"), "runs plan: " + runs);
      }
      assertTrue(keyIndex, "runs plan: " + runs);
    }
  }

  /** The claim filter of {@code dev.postbox.Jobs}, on the default table. */
  private static final String JOBS_CLAIM_FILTER =
      " AND (dedupe_key IS NULL OR NOT EXISTS (SELECT 1 FROM postbox_jobs running_job"
          + " WHERE running_job.running_key = postbox_jobs.dedupe_key))"
          + " AND name NOT IN (SELECT name FROM postbox_jobs_flow"
          + " WHERE kind = 'name' AND paused_at IS NOT NULL)";

  /** The step of {@code steps} that reads {@code table}. */
  private static Map<String, String> step(List<Map<String, String>> steps, String table) {
    return steps.stream()
        .filter(step -> table.equals(step.get("table")))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no step on " + table + ": " + steps));
  }

  /** 5,000 rows, every {@code nth} one not pending, so the index has something to skip. */
  private void fill(String insert, int nth) throws Exception {
    try (Connection c = db.dataSource().getConnection();
        var ps = c.prepareStatement(insert)) {
      for (int i = 0; i < 5000; i++) {
        ps.setString(1, "e" + i);
        ps.setInt(2, i % nth == 0 ? 2 : 0);
        ps.addBatch();
      }
      ps.executeBatch();
    }
  }

  /** The first row of {@code explain}'s plan, column by column; fails if it has more steps. */
  private static Map<String, String> plan(Statement s, String explain) throws Exception {
    List<Map<String, String>> steps = steps(s, explain);
    assertEquals(1, steps.size(), "one table, one step: " + steps);
    return steps.get(0);
  }

  /** Every row of {@code explain}'s plan, column by column. */
  private static List<Map<String, String>> steps(Statement s, String explain) throws Exception {
    try (ResultSet rs = s.executeQuery(explain)) {
      List<Map<String, String>> steps = new ArrayList<>();
      while (rs.next()) {
        Map<String, String> step = new LinkedHashMap<>();
        for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
          step.put(rs.getMetaData().getColumnLabel(i), String.valueOf(rs.getString(i)));
        }
        steps.add(step);
      }
      return steps;
    }
  }

  private void assertServedByIndex(String table, String columns, String index) throws Exception {
    QueueSql sql =
        QueueSql.of(
            Dialects.of(Database.MYSQL),
            new QueueTable<>(
                table,
                new QueueTable.Columns(columns, "id", "name", "", "NULL"),
                QueueTable.Clauses.NONE,
                null,
                null,
                null),
            100);
    try (Connection c = db.dataSource().getConnection();
        Statement s = c.createStatement()) {
      s.execute("ANALYZE TABLE " + table);
      Map<String, String> plan = plan(s, "EXPLAIN " + sql.candidates(0, null));
      assertEquals(index, plan.get("key"), "candidates plan: " + plan);
      // ref on state = 0 walked in (available_at, id) order, available_at checked in the index; the
      // index covers the ids, so no row is read, and LIMIT stops the walk
      assertTrue(Set.of("ref", "range").contains(plan.get("type")), "candidates plan: " + plan);
      assertTrue(plan.get("Extra").contains("Using index"), "candidates plan: " + plan);
      assertFalse(plan.get("Extra").contains("filesort"), "candidates plan: " + plan);
      // the locking step looks up only the candidates, by primary key, in its order
      String lock =
          sql.lockCandidates(3, null).replaceFirst("\\?, \\?, \\?", "1, 2, 3").replace("?", "3");
      plan = plan(s, "EXPLAIN " + lock);
      assertEquals("PRIMARY", plan.get("key"), "lock plan: " + plan);
      assertEquals("range", plan.get("type"), "lock plan: " + plan);
      assertFalse(plan.get("Extra").contains("filesort"), "lock plan: " + plan);
      // the cleanup's bounded DELETE walks the same index
      String cleanup =
          "EXPLAIN "
              + sql.text(Sql.CLEANUP).replaceFirst("\\?", "-1000").replace("LIMIT ?", "LIMIT 1000");
      try (ResultSet rs = s.executeQuery(cleanup)) {
        rs.next();
        assertEquals(index, rs.getString("key"), "cleanup plan");
      }
    }
  }
}
