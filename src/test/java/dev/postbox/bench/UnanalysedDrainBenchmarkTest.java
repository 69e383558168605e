package dev.postbox.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.postbox.Database;
import dev.postbox.Dispatcher;
import dev.postbox.Outbox;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * No statistics needed: a PostgreSQL outbox bulk-loaded with {@code bench.unanalysedRows}
 * (1,000,000) messages over 64 keys, autovacuum disabled on the table so nothing analyses it,
 * drained by Postbox at the defaults from its first claim; beside the same table after {@code
 * ANALYZE}. The dispatcher itself runs {@code VACUUM (ANALYZE)} after every {@code vacuumEvery}
 * (50,000) finished rows, so the first 50,000 rows are timed apart, and the whole drain is also run
 * with {@code vacuumEvery(0)}. Prints {@code EXPLAIN (ANALYZE, BUFFERS)} of the first claim on both
 * tables (in a transaction rolled back). A drain still running after {@code
 * bench.unanalysedMinutes} (30) stops there and reports the rate so far. Writes the report to
 * {@code target/unanalysed-drain.md}:
 *
 * <pre>mvn -B test -Pbench -Dtest=UnanalysedDrainBenchmarkTest</pre>
 */
@Tag("bench")
class UnanalysedDrainBenchmarkTest {
  private static final int WINDOW = 50_000;
  private static final List<String> MODES =
      List.of("unanalysed", "unanalysed, vacuumEvery(0)", "analysed", "analysed, vacuumEvery(0)");

  private final PrintStream out = System.out;
  private final Map<String, List<Double>> results = new LinkedHashMap<>();
  private final StringBuilder plans = new StringBuilder();
  private final Map<String, Long> stops = new LinkedHashMap<>();
  private final long limitMinutes = Long.getLong("bench.unanalysedMinutes", 30);

  @Test
  void benchmark() throws Exception {
    int n = Integer.getInteger("bench.unanalysedRows", 1_000_000);
    int reps = Integer.getInteger("bench.reps", 3);
    PerformanceHarness.Config config =
        PerformanceHarness.Config.fromSystemProperties(PerformanceHarness.Config.full());
    PerformanceHarness h = PerformanceHarness.forWorkload(config, out);
    try (BenchDb db = BenchDb.open(Database.POSTGRESQL)) {
      for (int rep = 0; rep < reps; rep++) {
        for (String mode : PerformanceHarness.interleaved(MODES, rep)) {
          measure(h, db, n, mode, rep);
        }
      }
    }
    MarkdownTable t =
        new MarkdownTable(
            "table",
            "vacuumEvery",
            "first 50,000 msg/s",
            "÷ analysed",
            "target ≥ 0.8×",
            "whole drain msg/s",
            "÷ analysed");
    for (String mode : MODES) {
      String analysedMode = mode.replace("unanalysed", "analysed");
      double first = median(mode + "/first");
      double whole = median(mode + "/whole");
      boolean unanalysed = mode.startsWith("unanalysed");
      double firstRatio = first / median(analysedMode + "/first");
      t.row(
          unanalysed ? "never analysed" : "after ANALYZE",
          mode.endsWith("(0)") ? "0" : "50,000 (default)",
          Stats.rate(first),
          unanalysed ? Stats.ratio(firstRatio) : "–",
          unanalysed ? Stats.met(firstRatio, 0.8, true) : "–",
          Stats.rate(whole) + (stops.containsKey(mode) ? " (stopped)" : ""),
          unanalysed ? Stats.ratio(whole / median(analysedMode + "/whole")) : "–");
    }
    String md =
        String.format(
                Locale.ROOT,
                "### No statistics needed (PostgreSQL)%n%n%,d messages over 64 keys, Postbox at the"
                    + " defaults (ordered by key); medians of %d.%n%n",
                n,
                reps)
            + t
            + "\n"
            + stops.entrySet().stream()
                .map(
                    e ->
                        String.format(
                            Locale.ROOT,
                            "%s: stopped after %d minutes, %,d rows finished.%n%n",
                            e.getKey(),
                            limitMinutes,
                            e.getValue()))
                .collect(Collectors.joining())
            + plans;
    out.println(md);
    Path classes =
        Path.of(
            UnanalysedDrainBenchmarkTest.class
                .getProtectionDomain()
                .getCodeSource()
                .getLocation()
                .toURI());
    Files.writeString(classes.getParent().resolve("unanalysed-drain.md"), md);
    assertEquals(List.of(), h.problems(), md);
  }

  private double median(String key) {
    return Stats.median(results.getOrDefault(key, List.of()));
  }

  private void measure(PerformanceHarness h, BenchDb db, int n, String mode, int rep) {
    String what = "unanalysed drain " + n + " " + mode + " rep " + (rep + 1);
    try {
      db.reset();
      db.execute("ALTER TABLE postbox_outbox SET (autovacuum_enabled = false)");
      db.seedOutboxUnanalysed(n, 64);
      boolean analysed = mode.startsWith("analysed");
      if (analysed) {
        db.execute("ANALYZE postbox_outbox");
      }
      if (rep == 0 && !mode.endsWith("(0)")) {
        plans.append(explain(db, analysed ? "after ANALYZE" : "never analysed"));
      }
      Deliveries d = new Deliveries(n);
      Progress p = new Progress(n, WINDOW);
      Outbox outbox = Outbox.builder().build();
      Dispatcher.Builder b =
          h.dispatcher(db.dataSource(), p).outbox(outbox, h.countingTransport(d));
      if (mode.endsWith("(0)")) {
        b.vacuumEvery(0);
      }
      Dispatcher dispatcher = b.build();
      long start = System.nanoTime();
      dispatcher.start();
      boolean stopped = false;
      try {
        p.await(Duration.ofMinutes(limitMinutes), n + " rows");
      } catch (IllegalStateException timedOut) {
        stopped = true;
      } finally {
        dispatcher.close();
      }
      long end = System.nanoTime();
      long done = p.done();
      if (stopped) {
        stops.put(mode, done);
      } else {
        h.checkDrained(what, db, d);
      }
      double first = done >= WINDOW ? WINDOW / ((p.crossedAt(0) - start) / 1e9) : Double.NaN;
      double whole = done / ((end - start) / 1e9);
      results.computeIfAbsent(mode + "/first", k -> new ArrayList<>()).add(first);
      results.computeIfAbsent(mode + "/whole", k -> new ArrayList<>()).add(whole);
      h.log(
          "%s: first 50,000 %s msg/s, whole %s msg/s%s",
          what,
          Stats.rate(first),
          Stats.rate(whole),
          stopped ? " (stopped after " + limitMinutes + " min, " + done + " rows)" : "");
    } catch (Exception e) {
      h.problem(what + ": failed: " + e);
    }
  }

  /**
   * EXPLAIN (ANALYZE, BUFFERS) of the default outbox's first claim (rendered in {@code
   * sql-rendered/postgresql/outbox-ordered-block/claim-runs.sql}), rolled back.
   */
  private String explain(BenchDb db, String label) throws SQLException, IOException {
    String sql;
    try (InputStream in =
        getClass()
            .getResourceAsStream("/sql-rendered/postgresql/outbox-ordered-block/claim-runs.sql")) {
      sql =
          new String(in.readAllBytes(), StandardCharsets.UTF_8)
              .lines()
              .filter(l -> !l.startsWith("--"))
              .collect(Collectors.joining("\n"))
              .replace(
                  "CAST(? AS VARCHAR), CAST(? AS BIGINT), CAST(? AS BIGINT[]), CAST(? AS INTEGER)",
                  "CAST('explain' AS VARCHAR), CAST(120000 AS BIGINT), CAST('{}' AS BIGINT[]),"
                      + " CAST(500 AS INTEGER)");
    }
    StringBuilder plan = new StringBuilder();
    try (Connection c = db.dataSource().getConnection();
        Statement s = c.createStatement()) {
      c.setAutoCommit(false);
      try (ResultSet rs = s.executeQuery("EXPLAIN (ANALYZE, BUFFERS) " + sql)) {
        while (rs.next()) {
          plan.append(rs.getString(1)).append('\n');
        }
      } finally {
        c.rollback();
        c.setAutoCommit(true);
      }
    }
    out.println("first claim, " + label + ":\n" + plan);
    return "First claim, " + label + ":\n\n```\n" + plan + "```\n\n";
  }
}
