package dev.postbox.internal.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postbox.Database;
import dev.postbox.testing.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * After a transaction held PostgreSQL's vacuum horizon, a queue table is thousands of pages holding
 * a handful of live rows, and ANALYZE says just that: planned from those statistics, a claim reads
 * every page of the table. The claim's plan settings ({@link Sql#CLAIM_PLAN}), sent before it, keep
 * it on the indexes: it reads a few pages whatever the statistics say.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PostgresBloatedTablePlanTest {
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

  @Test
  void anOrderedClaimOnABloatedTableOfFewRowsReadsByIndexNotEveryPage() throws Exception {
    QueueSql sql = OutboxStatements.of(Database.POSTGRESQL, new KeyOrder("msg_key", false), 500);
    try (Connection c = db.dataSource().getConnection();
        Statement s = c.createStatement()) {
      // what a held horizon leaves: 200,000 rows came and went; 20 live rows spread over the pages
      // keep VACUUM from truncating the table, and ANALYZE counts just them
      s.execute(
          "INSERT INTO postbox_outbox (event_id, topic, msg_key, payload)"
              + " SELECT 'e' || i, 't', 'k' || (i % 7), repeat('x', 100)"
              + " FROM generate_series(1, 200000) i");
      s.execute("DELETE FROM postbox_outbox WHERE id % 10000 <> 0");
      s.execute("VACUUM ANALYZE postbox_outbox");
      long pages = count(s, "SELECT relpages FROM pg_class WHERE relname = 'postbox_outbox'");
      assertTrue(pages > 4000, "the table's pages: " + pages);
      assertEquals(
          20,
          count(
              s, "SELECT reltuples::bigint FROM pg_class WHERE oid = 'postbox_outbox'::regclass"));

      c.setAutoCommit(false);
      long unguarded = blocksRead(s, sql);
      c.rollback();
      s.execute(sql.text(Sql.CLAIM_PLAN));
      long guarded = blocksRead(s, sql);
      String plan = lastPlan;
      c.rollback();

      // without the settings the planner reads every page (the hazard is real here)
      assertTrue(unguarded >= pages, "pages read without the plan settings: " + unguarded);
      assertFalse(plan.contains("Seq Scan"), plan);
      assertFalse(plan.contains("Bitmap"), plan);
      // most of what it reads is the UPDATE's: 20 new row versions and their index entries
      assertTrue(guarded < pages / 4, "pages read with them: " + guarded + " of " + pages);
      assertEquals(20, claimedRows, "rows claimed: every live row, heads and the runs behind them");
    }
  }

  private String lastPlan;
  private long claimedRows;

  /** Runs the claim of heads and runs under EXPLAIN ANALYZE; returns the pages it read. */
  private long blocksRead(Statement s, QueueSql sql) throws Exception {
    String filled =
        sql.claimRuns()
            .replaceFirst("\\?", "'someone'")
            .replaceFirst("\\?", "120000")
            .replaceFirst("\\?", "'{}'")
            .replaceFirst("\\?", "500");
    StringBuilder plan = new StringBuilder();
    try (ResultSet rs = s.executeQuery("EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) " + filled)) {
      while (rs.next()) {
        plan.append(rs.getString(1));
      }
    }
    lastPlan = plan.toString();
    Matcher rows = Pattern.compile("\"Actual Rows\": (\\d+)").matcher(plan);
    assertTrue(rows.find(), plan.toString());
    claimedRows = Long.parseLong(rows.group(1));
    // the top node's counts are the whole statement's
    return first(plan, "Shared Hit Blocks") + first(plan, "Shared Read Blocks");
  }

  private static long first(CharSequence plan, String name) {
    Matcher m = Pattern.compile("\"" + name + "\": (\\d+)").matcher(plan);
    assertTrue(m.find(), name + " in " + plan);
    return Long.parseLong(m.group(1));
  }

  private static long count(Statement s, String query) throws Exception {
    try (ResultSet rs = s.executeQuery(query)) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
