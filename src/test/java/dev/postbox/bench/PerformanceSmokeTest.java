package dev.postbox.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postbox.Database;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Keeps the performance harness from rotting: every workload on every database with tiny sizes and
 * one repetition. Asserts correctness only (each message delivered exactly once, every row
 * finished, the report complete), never speed.
 */
class PerformanceSmokeTest {

  @Test
  void everyWorkloadOnEveryDatabaseDeliversEachMessageExactlyOnce() {
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    PerformanceHarness.Report report =
        PerformanceHarness.run(
            PerformanceHarness.Config.smoke(), new PrintStream(log, true, StandardCharsets.UTF_8));
    String output = log.toString(StandardCharsets.UTF_8);

    assertEquals(List.of(), report.problems(), output);
    for (String section :
        List.of(
            "### W1 backlog drain (outbox)",
            "### W1 backlog drain (durable jobs)",
            "`keepDelivered(Duration.ofHours(1))` beside the defaults",
            "### W2 produce and deliver",
            "### W0 enqueue overhead",
            "### Sustained drain (PostgreSQL)",
            "### Write volume: bytes logged per message")) {
      assertTrue(report.markdown().contains(section), section + " missing:\n" + report.markdown());
    }
    for (String database : List.of("| PostgreSQL ", "| MariaDB ", "| SQLite ", "| H2 ")) {
      assertTrue(
          report.markdown().contains(database), database + " missing:\n" + report.markdown());
    }
  }

  @Test
  void heldHorizonDeliversEachMessageExactlyOnce() {
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    PerformanceHarness h =
        PerformanceHarness.forWorkload(
            PerformanceHarness.Config.smoke(), new PrintStream(log, true, StandardCharsets.UTF_8));
    List<BenchDb> dbs = List.of(BenchDb.open(Database.POSTGRESQL), BenchDb.open(Database.MYSQL));
    String markdown;
    try {
      markdown =
          new HeldHorizon(
                  h,
                  200,
                  List.of(Duration.ofSeconds(2), Duration.ofSeconds(2), Duration.ofSeconds(2)),
                  Duration.ofSeconds(1),
                  List.of("postbox", "floor"))
              .run(dbs);
    } finally {
      dbs.forEach(BenchDb::close);
    }

    assertEquals(List.of(), h.problems(), log.toString(StandardCharsets.UTF_8));
    for (String section :
        List.of("#### PostgreSQL, Postbox", "#### PostgreSQL, floor", "#### MariaDB, Postbox")) {
      assertTrue(markdown.contains(section), section + " missing:\n" + markdown);
    }
  }
}
