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
 * The PostgreSQL claim locks its rows in an InitPlan that runs once, through the claim index: a
 * semi-join could re-run the LIMITed FOR UPDATE subquery and lease more rows than the batch size.
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

  @Test
  void claimLocksItsRowsOnceInAnInitPlanThroughTheClaimIndex() throws Exception {
    QueueSql sql =
        new QueueSql(
            Dialects.of(Database.POSTGRESQL),
            new QueueTable<>(
                "postbox_outbox",
                "event_id, topic, msg_key, payload, headers",
                "event_id",
                "topic",
                "",
                null));
    try (Connection c = db.dataSource().getConnection();
        Statement s = c.createStatement()) {
      s.execute(
          "INSERT INTO postbox_outbox (event_id, topic, payload, state)"
              + " SELECT 'e' || i, 't', '{}', CASE WHEN i % 10 = 0 THEN 2 ELSE 0 END"
              + " FROM generate_series(1, 20000) i");
      s.execute("ANALYZE postbox_outbox");
      String explained =
          "EXPLAIN "
              + sql.claimReturning
                  .replaceFirst("\\?", "'someone'")
                  .replaceFirst("\\?", "120000")
                  .replaceFirst("\\?", "100");
      StringBuilder plan = new StringBuilder();
      try (ResultSet rs = s.executeQuery(explained)) {
        while (rs.next()) {
          plan.append(rs.getString(1)).append('\n');
        }
      }
      assertTrue(plan.toString().contains("InitPlan"), plan.toString());
      assertTrue(plan.toString().contains("LockRows"), plan.toString());
      assertTrue(plan.toString().contains("postbox_outbox_claim"), plan.toString());
      assertTrue(!plan.toString().contains("Semi Join"), plan.toString());
    }
  }
}
