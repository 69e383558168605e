package dev.postbox;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.postbox.testing.Await;
import dev.postbox.testing.RecordingTransport;
import dev.postbox.testing.Sql;
import dev.postbox.testing.TestDatabase;
import org.junit.jupiter.api.Test;

/**
 * A PostgreSQL table bulk-loaded and never analysed has its claims planned blind (every due row
 * read and sorted: docs/performance.md#no-statistics-needed-postgresql): the dispatcher notices at
 * its first finished rows and runs ANALYZE, long before its first vacuum.
 */
class PostgresStatisticsGuardTest extends OutboxSuite {
  @Override
  protected TestDatabase open() {
    return TestDatabase.postgres();
  }

  private long analyses() {
    return Sql.count(
        ds,
        "SELECT COALESCE(analyze_count + autoanalyze_count + vacuum_count, 0)"
            + " FROM pg_stat_user_tables WHERE relname = 'postbox_outbox'");
  }

  @Test
  void aTableBulkLoadedAndNeverAnalysedIsAnalysedAtTheFirstFinishedRows() {
    Sql.update(ds, "ALTER TABLE postbox_outbox SET (autovacuum_enabled = false)"); // nothing else
    Sql.update(
        ds,
        "INSERT INTO postbox_outbox (event_id, topic, payload)"
            + " SELECT 'e-' || g, 't', '{}' FROM generate_series(1, 20000) g");
    assertEquals(
        1L,
        Sql.count(
            ds, "SELECT COUNT(*) FROM pg_class WHERE relname = 'postbox_outbox' AND reltuples < 0"),
        "never analysed");
    long before = analyses();
    RecordingTransport transport = new RecordingTransport();
    started(dispatcher(transport).vacuumEvery(1_000_000)); // no vacuum in this drain

    Await.until(WAIT, "an ANALYZE of the table", () -> analyses() > before);
    Await.until(WAIT, "the drain", () -> transport.total.get() == 20_000 && rows() == 0);
    assertEquals(0, transport.duplicated());
    assertEquals(
        0L,
        Sql.count(
            ds,
            "SELECT COUNT(*) FROM pg_stat_user_tables WHERE relname = 'postbox_outbox'"
                + " AND vacuum_count > 0"),
        "it was ANALYZE, not the vacuum");
  }

  @Test
  void anAnalysedTableIsNotAnalysedAgainByTheGuard() {
    Sql.update(ds, "ALTER TABLE postbox_outbox SET (autovacuum_enabled = false)");
    Sql.update(
        ds,
        "INSERT INTO postbox_outbox (event_id, topic, payload)"
            + " SELECT 'e-' || g, 't', '{}' FROM generate_series(1, 5000) g");
    Sql.update(ds, "ANALYZE postbox_outbox");
    Await.until(WAIT, "the ANALYZE counted", () -> analyses() >= 1);
    long before = analyses();
    RecordingTransport transport = new RecordingTransport();
    started(dispatcher(transport).vacuumEvery(1_000_000));
    Await.until(WAIT, "the drain", () -> transport.total.get() == 5_000 && rows() == 0);
    assertEquals(before, analyses(), "no ANALYZE: the statistics were there");
  }
}
