package dev.postbox.internal;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postbox.Database;
import dev.postbox.internal.dialect.Dialects;
import dev.postbox.testing.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The PostgreSQL claim locks its rows in a MATERIALIZED CTE that runs once, through the claim index
 * (a semi-join could re-run the LIMITed FOR UPDATE subquery and lease more rows than the batch
 * size), and finds them by primary key even in the generic plan that pgjdbc keeps once a statement
 * has run five times on a connection, when that plan was made while the table was empty.
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
    return new QueueSql(
        Dialects.of(Database.POSTGRESQL),
        new QueueTable<>(
            "postbox_outbox",
            "event_id, topic, msg_key, payload, headers",
            "event_id",
            "topic",
            "",
            null),
        100);
  }

  @Test
  void theGenericPlanFindsTheClaimedRowsByIndexOnAnEmptyTableAndOnABacklog() throws Exception {
    db.resetSchema();
    assertIndexOnly(genericPlan());
    try (Connection c = db.dataSource().getConnection();
        Statement s = c.createStatement()) {
      s.execute(
          "INSERT INTO postbox_outbox (event_id, topic, payload)"
              + " SELECT 'b' || i, 't', '{}' FROM generate_series(1, 50000) i");
      s.execute("ANALYZE postbox_outbox");
    }
    assertIndexOnly(genericPlan());
  }

  private static void assertIndexOnly(String plan) {
    assertTrue(!plan.contains("Seq Scan"), plan);
    assertTrue(plan.contains("postbox_outbox_pkey"), plan);
    assertTrue(plan.contains("postbox_outbox_claim"), plan);
  }

  /** The plan PostgreSQL keeps once pgjdbc has server-prepared the claim and chosen generic. */
  private String genericPlan() throws Exception {
    String claim = outboxSql().claimReturning;
    StringBuilder numbered = new StringBuilder();
    int n = 0;
    for (char ch : claim.toCharArray()) {
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
      try (ResultSet rs = s.executeQuery("EXPLAIN EXECUTE claim_generic('someone', 120000)")) {
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
              + sql.claimReturning.replaceFirst("\\?", "'someone'").replaceFirst("\\?", "120000");
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
