package dev.postbox.bench;

import dev.postbox.Dispatcher;
import dev.postbox.Outbox;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Sustained drain on PostgreSQL: one long backlog drained by the floor and by Postbox, throughput
 * per window of rows, and at every window the table's dead tuples, autovacuum runs, and what one
 * claim's index scan costs right then ({@code EXPLAIN (ANALYZE, BUFFERS)} of the claim's SELECT,
 * without locking: buffers touched and milliseconds). Shows whether claims slow down as dead index
 * entries pile up at the head of {@code (state, available_at, id)}.
 */
final class SustainedDrain {
  private static final Pattern BUFFERS =
      Pattern.compile("Buffers: shared hit=(\\d+)(?: read=(\\d+))?");
  private static final Pattern EXECUTION = Pattern.compile("Execution Time: ([0-9.]+) ms");

  private final PerformanceHarness h;
  private final AtomicLong retries = new AtomicLong();

  SustainedDrain(PerformanceHarness h) {
    this.h = h;
  }

  /** One window: rows/s within it and the table's state when it ended. */
  private record Window(
      double rate, long deadTuples, long autovacuums, long buffers, double scanMs) {}

  /** Who drains: the floor, Postbox, or Postbox with a {@code VACUUM} after every window. */
  private enum Contestant {
    FLOOR("floor"),
    POSTBOX("Postbox"),
    POSTBOX_VACUUM("Postbox + VACUUM");

    final String label;

    Contestant(String label) {
      this.label = label;
    }
  }

  String run(BenchDb db) {
    int n = h.config.sustainedSize();
    int window = h.config.sustainedWindow();
    Map<Contestant, List<List<Window>>> runs = new EnumMap<>(Contestant.class);
    for (int rep = 0; rep < h.config.repetitions(); rep++) {
      for (Contestant c : PerformanceHarness.interleaved(List.of(Contestant.values()), rep)) {
        runs.computeIfAbsent(c, k -> new ArrayList<>())
            .add(measure(db, c, n, window, "rep " + (rep + 1)));
      }
    }
    MarkdownTable t =
        new MarkdownTable(
            "rows done",
            "floor msg/s",
            "dead tuples",
            "claim scan buffers / ms",
            "Postbox msg/s",
            "dead tuples ",
            "claim scan buffers / ms ",
            "Postbox + VACUUM msg/s",
            "dead tuples  ",
            "claim scan buffers / ms  ");
    int windows = n / window;
    for (int k = 0; k < windows; k++) {
      List<String> cells = new ArrayList<>();
      cells.add(String.format("%,d", (long) (k + 1) * window));
      for (Contestant c : Contestant.values()) {
        Window w = median(runs.getOrDefault(c, List.of()), k);
        cells.add(Stats.rate(w.rate()));
        cells.add(String.format("%,d", w.deadTuples()));
        cells.add(w.buffers() + " / " + Stats.decimal(w.scanMs(), 2));
      }
      t.row(cells.toArray(String[]::new));
    }
    StringBuilder autovacuums = new StringBuilder();
    for (Contestant c : Contestant.values()) {
      List<List<Window>> r = runs.getOrDefault(c, List.of());
      long count =
          r.stream().mapToLong(w -> w.isEmpty() ? 0 : w.get(w.size() - 1).autovacuums()).sum();
      autovacuums
          .append(autovacuums.isEmpty() ? "" : ", ")
          .append(c.label)
          .append(' ')
          .append(count);
    }
    return "### Sustained drain (PostgreSQL)\n\n"
        + String.format(
            "%,d messages pre-inserted and drained; msg/s per window of %,d; at the end of each"
                + " window `n_dead_tup` of `pg_stat_user_tables` (lags up to ~1 s) and one `EXPLAIN"
                + " (ANALYZE, BUFFERS)` of the claim's SELECT (no lock): shared buffers touched and"
                + " execution ms. \"Postbox + VACUUM\": a side connection runs `VACUUM"
                + " postbox_outbox` after every window (what frequent autovacuum would do). Server:"
                + " %s. Autovacuum runs during the drains: %s. Medians per window over %d"
                + " run(s).%n%n",
            n, window, autovacuumSettings(db), autovacuums, h.config.repetitions())
        + t;
  }

  /** The server's autovacuum switch and naptime, as a phrase. */
  static String autovacuumSettings(BenchDb db) {
    try (Connection c = db.dataSource().getConnection();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT current_setting('autovacuum'), current_setting('autovacuum_naptime')")) {
      rs.next();
      return "autovacuum " + rs.getString(1) + ", naptime " + rs.getString(2);
    } catch (SQLException e) {
      return "autovacuum settings unknown (" + e.getMessage() + ")";
    }
  }

  private static Window median(List<List<Window>> runs, int k) {
    List<Window> at = runs.stream().filter(r -> r.size() > k).map(r -> r.get(k)).toList();
    if (at.isEmpty()) {
      return new Window(Double.NaN, 0, 0, 0, Double.NaN);
    }
    return new Window(
        Stats.median(at.stream().map(Window::rate).toList()),
        (long) Stats.median(at.stream().map(w -> (double) w.deadTuples()).toList()),
        (long) Stats.median(at.stream().map(w -> (double) w.autovacuums()).toList()),
        (long) Stats.median(at.stream().map(w -> (double) w.buffers()).toList()),
        Stats.median(at.stream().map(Window::scanMs).toList()));
  }

  private List<Window> measure(BenchDb db, Contestant contestant, int n, int window, String label) {
    String what = "sustained " + contestant.label + " " + label;
    boolean postbox = contestant != Contestant.FLOOR;
    boolean vacuum = contestant == Contestant.POSTBOX_VACUUM;
    List<Window> windows = new ArrayList<>();
    Thread sampler = null;
    try {
      db.reset();
      db.seedOutbox(n);
      Deliveries d = new Deliveries(n);
      Progress p = new Progress(n, window);
      long autovacuumsBefore = stats(db)[1];
      sampler =
          Thread.ofPlatform()
              .name("bench-sampler")
              .start(() -> sample(db, p, n / window, autovacuumsBefore, vacuum, windows));
      long start = System.nanoTime();
      if (postbox) {
        Dispatcher dispatcher =
            h.dispatcher(db.dataSource(), p)
                .outbox(Outbox.builder().build(), h.countingTransport(d))
                .build();
        dispatcher.start();
        try {
          p.await(h.config.timeout(), n + " messages");
        } finally {
          dispatcher.close();
        }
      } else {
        Floor.run(
            db,
            Floor.Kind.OUTBOX,
            h.config.batchSize(),
            Floor.Order.DUE,
            row -> d.delivered(row.index()),
            p,
            null,
            h.config.pollInterval(),
            () -> false,
            retries);
      }
      long nanos = System.nanoTime() - start;
      sampler.join();
      windowRates(windows, p, start, window);
      String problems = d.problems();
      if (!problems.isEmpty()) {
        h.problem(what + ": " + problems);
      }
      h.log("%s: %s msg/s overall", what, Stats.rate(n / (nanos / 1e9)));
      return windows;
    } catch (Exception e) {
      h.problem(what + ": failed: " + e);
      if (sampler != null) {
        sampler.interrupt();
      }
      return windows;
    }
  }

  /** Fills in each window's rate from the crossing times, once the drain is over. */
  private static void windowRates(List<Window> windows, Progress p, long start, int window) {
    long previous = start;
    for (int k = 0; k < windows.size(); k++) {
      long at = p.crossedAt(k);
      Window w = windows.get(k);
      windows.set(
          k,
          new Window(
              window / ((at - previous) / 1e9),
              w.deadTuples(),
              w.autovacuums(),
              w.buffers(),
              w.scanMs()));
      previous = at;
    }
  }

  private void sample(
      BenchDb db,
      Progress p,
      int windows,
      long autovacuumsBefore,
      boolean vacuum,
      List<Window> out) {
    try {
      for (int k = 0; k < windows; ) {
        int crossed = p.nextCrossing(h.config.timeout().toMillis());
        if (crossed < 0) {
          return;
        }
        long[] stats = stats(db);
        long[] scan = claimScan(db, h.config.batchSize());
        synchronized (out) {
          while (out.size() <= crossed) {
            out.add(
                new Window(
                    Double.NaN, stats[0], stats[1] - autovacuumsBefore, scan[0], scan[1] / 1e3));
          }
        }
        k = crossed + 1;
        if (vacuum && k < windows) {
          db.execute("VACUUM postbox_outbox");
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (SQLException e) {
      h.problem("sustained: sampling failed: " + e);
    }
  }

  /** n_dead_tup and autovacuum_count of postbox_outbox. */
  static long[] stats(BenchDb db) throws SQLException {
    try (Connection c = db.dataSource().getConnection();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT n_dead_tup, autovacuum_count FROM pg_stat_user_tables"
                    + " WHERE relname = 'postbox_outbox'")) {
      return rs.next() ? new long[] {rs.getLong(1), rs.getLong(2)} : new long[] {0, 0};
    }
  }

  /**
   * Shared buffers touched and microseconds spent by one claim's index scan for {@code limit} rows,
   * right now (PostgreSQL).
   */
  static long[] claimScan(BenchDb db, int limit) throws SQLException {
    String sql =
        "EXPLAIN (ANALYZE, BUFFERS, TIMING OFF) SELECT id FROM postbox_outbox WHERE state = 0 AND"
            + " available_at <= now() ORDER BY available_at, id LIMIT "
            + limit;
    long buffers = -1;
    double ms = Double.NaN;
    try (Connection c = db.dataSource().getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      while (rs.next()) {
        String line = rs.getString(1);
        Matcher b = BUFFERS.matcher(line);
        if (buffers < 0 && b.find()) {
          buffers =
              Long.parseLong(b.group(1)) + (b.group(2) == null ? 0 : Long.parseLong(b.group(2)));
        }
        Matcher e = EXECUTION.matcher(line);
        if (e.find()) {
          ms = Double.parseDouble(e.group(1));
        }
      }
    }
    return new long[] {Math.max(0, buffers), (long) (ms * 1e3)};
  }
}
