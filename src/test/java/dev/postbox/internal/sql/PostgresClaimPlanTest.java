package dev.postbox.internal.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postbox.Database;
import dev.postbox.testing.Await;
import dev.postbox.testing.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The PostgreSQL claim locks its rows in a MATERIALIZED CTE that runs once, through the claim index
 * (a semi-join could re-run the LIMITed FOR UPDATE subquery and lease more rows than the batch
 * size), and finds them by primary key even in the generic plan that pgjdbc keeps once a statement
 * has run five times on a connection, when that plan was made while the table was empty. A claim
 * that carries finished rows finishes exactly those still leased by its instance, like the DELETE
 * alone, also when a lease renewal held them meanwhile.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PostgresClaimPlanTest {
  private TestDatabase db;

  @BeforeAll
  void open() {
    db = TestDatabase.postgres();
    db.resetSchema();
  }

  @AfterAll
  void close() {
    db.close();
  }

  private static QueueSql outboxSql() {
    return outboxSql(null);
  }

  /** The outbox's statements; {@code order} null if the outbox is not ordered by key. */
  private static QueueSql outboxSql(KeyOrder order) {
    return OutboxStatements.of(Database.POSTGRESQL, order, 100);
  }

  private static final String CLAIM_ARGS = "'someone', 120000";

  @Test
  void theGenericPlanFindsTheClaimedRowsByIndexOnAnEmptyTableAndOnABacklog() throws Exception {
    db.resetSchema();
    String claim = outboxSql().text(Sql.CLAIM);
    assertIndexOnly(genericPlan(claim, CLAIM_ARGS));
    try (Connection c = db.dataSource().getConnection();
        Statement s = c.createStatement()) {
      s.execute(
          "INSERT INTO postbox_outbox (event_id, topic, payload)"
              + " SELECT 'b' || i, 't', '{}' FROM generate_series(1, 50000) i");
      s.execute("ANALYZE postbox_outbox");
    }
    assertIndexOnly(genericPlan(claim, CLAIM_ARGS));
  }

  @Test
  void aFinishWaitingOnALeaseRenewalStillFinishesTheRows() throws Exception {
    db.resetSchema();
    QueueSql sql = outboxSql();
    try (Connection renewal = db.dataSource().getConnection();
        Connection c = db.dataSource().getConnection();
        Statement s = c.createStatement()) {
      s.execute(
          "INSERT INTO postbox_outbox (id, event_id, topic, payload, leased_by, attempts,"
              + " claims, available_at) SELECT i, 'e' || i, 't', '{}', 'someone', 1, 1,"
              + " now() + interval '1 minute' FROM generate_series(1, 4) i");
      // the lease renewer holds the new versions of rows 1-4 while the finish runs
      renewal.setAutoCommit(false);
      try (Statement r = renewal.createStatement()) {
        r.executeUpdate(
            "UPDATE postbox_outbox SET available_at = now() + interval '2 minutes'"
                + " WHERE id <= 4");
      }
      // a thread each: the common pool may run one task at a time on a small machine
      var threads = java.util.concurrent.Executors.newFixedThreadPool(2);
      var delete =
          java.util.concurrent.CompletableFuture.supplyAsync(
              () -> finish(sql.finishSql(2, false), List.of("someone", 1, 1L, 2L)), threads);
      var combined =
          java.util.concurrent.CompletableFuture.supplyAsync(
              () ->
                  finish(
                      sql.claimAfterFinish(2, false),
                      List.of("someone", 120000L, "someone", 1, 3L, 4L)),
              threads);
      Await.until(
          java.time.Duration.ofSeconds(10),
          "both finishes waiting on the renewal's row locks",
          () -> waitingOnLocks() == 2);
      renewal.commit();
      assertEquals(2, delete.get(), "rows the DELETE finished");
      assertEquals(2, combined.get(), "rows the claim's finish finished");
      assertEquals(0, count(s, "SELECT COUNT(*) FROM postbox_outbox"));
      threads.shutdown();
    }
  }

  /** Runs a finish (alone or in a claim) with {@code args}; returns the rows it finished. */
  private int finish(String statement, List<Object> args) {
    try (Connection c = db.dataSource().getConnection();
        var ps = c.prepareStatement(statement)) {
      for (int i = 0; i < args.size(); i++) {
        ps.setObject(i + 1, args.get(i));
      }
      if (!statement.startsWith("WITH")) {
        return ps.executeUpdate();
      }
      try (ResultSet rs = ps.executeQuery()) {
        int finished = -1;
        while (rs.next()) {
          finished = rs.getInt("finished$rows");
        }
        return finished;
      }
    } catch (java.sql.SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  private long waitingOnLocks() {
    try (Connection c = db.dataSource().getConnection();
        Statement s = c.createStatement()) {
      return count(
          s,
          "SELECT COUNT(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
              + " AND datname = current_database()");
    } catch (java.sql.SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  private static long count(Statement s, String query) throws java.sql.SQLException {
    try (ResultSet rs = s.executeQuery(query)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  @Test
  void aClaimCarryingFinishedRowsDeletesOnlyThoseStillLeasedAndCountsThem() throws Exception {
    db.resetSchema();
    QueueSql sql = outboxSql();
    try (Connection c = db.dataSource().getConnection();
        Statement s = c.createStatement()) {
      // ids 1-3 leased by 'someone' at attempt 1, id 4 by another instance, ids 5-6 due
      s.execute(
          "INSERT INTO postbox_outbox (id, event_id, topic, payload, leased_by, attempts,"
              + " claims, available_at) SELECT i, 'e' || i, 't', '{}', CASE WHEN i <= 3 THEN"
              + " 'someone' WHEN i = 4 THEN 'other' END, CASE WHEN i <= 4 THEN 1 ELSE 0 END,"
              + " CASE WHEN i <= 4 THEN 1 ELSE 0 END,"
              + " CASE WHEN i <= 4 THEN now() + interval '1 minute' ELSE now() END"
              + " FROM generate_series(1, 6) i");
      String combined = sql.claimAfterFinish(4, false);
      List<Long> claimed = new ArrayList<>();
      int finished = -1;
      try (var ps = c.prepareStatement(combined)) {
        Object[] args = {"someone", 120000L, "someone", 1, 1L, 2L, 4L, 99L};
        for (int i = 0; i < args.length; i++) {
          ps.setObject(i + 1, args[i]);
        }
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            finished = rs.getInt("finished$rows");
            long id = rs.getLong("id");
            if (!rs.wasNull()) {
              claimed.add(id);
            }
          }
        }
      }
      assertEquals(2, finished); // 1 and 2; 4 is not ours
      assertEquals(List.of(5L, 6L), claimed.stream().sorted().toList());
      try (ResultSet rs = s.executeQuery("SELECT id FROM postbox_outbox ORDER BY id")) {
        List<Long> left = new ArrayList<>();
        while (rs.next()) {
          left.add(rs.getLong(1));
        }
        assertEquals(List.of(3L, 4L, 5L, 6L), left);
      }
      // nothing due: one row that only carries the count
      try (var ps = c.prepareStatement(combined)) {
        Object[] args = {"someone", 120000L, "someone", 1, 3L, 3L, 3L, 3L};
        for (int i = 0; i < args.length; i++) {
          ps.setObject(i + 1, args[i]);
        }
        int rows = 0;
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            rows++;
            assertEquals(1, rs.getInt("finished$rows"));
            rs.getLong("id");
            assertTrue(rs.wasNull());
          }
        }
        assertEquals(1, rows);
      }
    }
  }

  private static void assertIndexOnly(String plan) {
    assertTrue(!plan.contains("Seq Scan"), plan);
    assertTrue(plan.contains("postbox_outbox_pkey"), plan);
    assertTrue(plan.contains("postbox_outbox_claim"), plan);
  }

  /**
   * The plan PostgreSQL keeps for {@code sql} once pgjdbc has server-prepared it and PostgreSQL
   * chose a generic plan; {@code args} are the EXECUTE arguments.
   */
  private String genericPlan(String sql, String args) throws Exception {
    StringBuilder numbered = new StringBuilder();
    int n = 0;
    for (char ch : sql.toCharArray()) {
      if (ch == '?') {
        numbered.append('$').append(++n);
      } else {
        numbered.append(ch);
      }
    }
    StringBuilder plan = new StringBuilder();
    try (Connection c = db.dataSource().getConnection();
        Statement s = c.createStatement()) {
      s.execute("SET plan_cache_mode = force_generic_plan");
      s.execute("PREPARE claim_generic AS " + numbered);
      try (ResultSet rs = s.executeQuery("EXPLAIN EXECUTE claim_generic(" + args + ")")) {
        while (rs.next()) {
          plan.append(rs.getString(1)).append('\n');
        }
      } finally {
        s.execute("DEALLOCATE claim_generic");
        s.execute("RESET plan_cache_mode");
      }
    }
    return plan.toString();
  }

  /**
   * The walk over keys is a loose index scan: on 200,000 rows over 10 keys it returns the 10 keys,
   * each with its oldest pending row, and reads a few pages of the key index per key, not the rows
   * of each key.
   */
  @Test
  void theWalkOverKeysReadsAFewIndexPagesPerKeyNotTheRowsOfEachKey() throws Exception {
    db.resetSchema();
    QueueSql sql = outboxSql(new KeyOrder("msg_key", true));
    try (Connection c = db.dataSource().getConnection();
        Statement s = c.createStatement()) {
      s.execute(
          "INSERT INTO postbox_outbox (event_id, topic, msg_key, payload)"
              + " SELECT 'w' || i, 't', 'k' || (i % 10), '{}' FROM generate_series(1, 200000) i");
      s.execute("VACUUM ANALYZE postbox_outbox");
      List<String> keys = new ArrayList<>();
      List<Long> ids = new ArrayList<>();
      try (ResultSet rs = s.executeQuery(sql.walkKeysFromStart().replace("?", "100"))) {
        while (rs.next()) {
          keys.add(rs.getString("walk_key"));
          ids.add(rs.getLong("walk_id"));
          assertEquals(1, rs.getInt("walk_due"));
        }
      }
      assertEquals(List.of("k0", "k1", "k2", "k3", "k4", "k5", "k6", "k7", "k8", "k9"), keys);
      assertEquals(List.of(10L, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L), ids);
      StringBuilder plan = new StringBuilder();
      try (ResultSet rs =
          s.executeQuery(
              "EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) "
                  + sql.walkKeysFromStart().replace("?", "100"))) {
        while (rs.next()) {
          plan.append(rs.getString(1));
        }
      }
      // the top node's counts are the whole statement's
      int blocks = firstCount(plan, "Shared Hit Blocks") + firstCount(plan, "Shared Read Blocks");
      // one key's rows alone fill over 50 pages of the key index
      assertTrue(blocks < 200, "pages read by the walk: " + blocks + "\n" + plan);
    }
  }

  /**
   * PostgreSQL JIT-compiles a statement whose estimated cost passes jit_above_cost, on every run:
   * tens of milliseconds per claim. The ordered claim's estimate stays below it on a large table of
   * few keys, and its claimed rows are found by primary key probes, not a join over the table.
   */
  @Test
  void theOrderedClaimOnALargeTableIsNeitherJitCompiledNorJoinedOverTheTable() throws Exception {
    db.resetSchema();
    QueueSql sql = outboxSql(new KeyOrder("msg_key", true));
    try (Connection c = db.dataSource().getConnection();
        Statement s = c.createStatement()) {
      assertEquals("on", value(s, "SHOW jit"));
      s.execute(
          "INSERT INTO postbox_outbox (event_id, topic, msg_key, payload)"
              + " SELECT 'e' || i, 't', 'k' || (i % 10), '{}' FROM generate_series(1, 500000) i");
      s.execute("ANALYZE postbox_outbox");
      for (String statement : List.of(sql.claimRuns(), sql.claimRunsAfterFinish(2, false))) {
        String filled =
            statement
                .replaceFirst("\\?", "'someone'")
                .replaceFirst("\\?", "120000")
                .replaceFirst("\\?", "'{1,2}'")
                .replaceFirst("\\?", "100")
                .replace("?", "'1'");
        StringBuilder plan = new StringBuilder();
        try (ResultSet rs = s.executeQuery("EXPLAIN " + filled)) {
          while (rs.next()) {
            plan.append(rs.getString(1)).append('\n');
          }
        }
        assertTrue(!plan.toString().contains("JIT:"), plan.toString());
        assertTrue(!plan.toString().contains("Merge Join"), plan.toString());
        assertTrue(!plan.toString().contains("Hash Join"), plan.toString());
      }
    }
  }

  /** The first {@code "name": n} of a JSON plan. */
  private static int firstCount(CharSequence plan, String name) {
    java.util.regex.Matcher m =
        java.util.regex.Pattern.compile("\"" + name + "\": (\\d+)").matcher(plan);
    assertTrue(m.find(), name + " in " + plan);
    return Integer.parseInt(m.group(1));
  }

  private static String value(Statement s, String query) throws java.sql.SQLException {
    try (ResultSet rs = s.executeQuery(query)) {
      rs.next();
      return rs.getString(1);
    }
  }

  @Test
  void claimLocksItsRowsOnceInACteThroughTheClaimIndex() throws Exception {
    QueueSql sql = outboxSql();
    try (Connection c = db.dataSource().getConnection();
        Statement s = c.createStatement()) {
      s.execute(
          "INSERT INTO postbox_outbox (event_id, topic, payload, state)"
              + " SELECT 'e' || i, 't', '{}', CASE WHEN i % 10 = 0 THEN 2 ELSE 0 END"
              + " FROM generate_series(1, 20000) i");
      s.execute("ANALYZE postbox_outbox");
      String explained =
          "EXPLAIN "
              + sql.text(Sql.CLAIM).replaceFirst("\\?", "'someone'").replaceFirst("\\?", "120000");
      StringBuilder plan = new StringBuilder();
      try (ResultSet rs = s.executeQuery(explained)) {
        while (rs.next()) {
          plan.append(rs.getString(1)).append('\n');
        }
      }
      assertTrue(plan.toString().contains("CTE claim$due"), plan.toString());
      assertTrue(plan.toString().contains("LockRows"), plan.toString());
      assertTrue(plan.toString().contains("postbox_outbox_claim"), plan.toString());
      assertTrue(!plan.toString().contains("Semi Join"), plan.toString());
    }
  }
}
