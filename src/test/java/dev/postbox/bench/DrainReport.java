package dev.postbox.bench;

import dev.postbox.Database;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * W1's tables: Postbox against the best floor of the run (which one it was, and client CPU per
 * row), every floor of the grid with the minimal table's, and Postbox with a batch transport and
 * with 1 ms sends, and when asked for {@code keepDelivered} beside the defaults. Medians of the
 * repetitions.
 */
final class DrainReport {
  private final PerformanceHarness.Config config;
  private final Drain drain;
  private final Map<String, List<Double>> results;

  DrainReport(PerformanceHarness.Config config, Drain drain, Map<String, List<Double>> results) {
    this.config = config;
    this.drain = drain;
    this.results = results;
  }

  static String key(BenchDb db, int n, Floor.Kind kind, String contestant) {
    return db.name() + "/" + n + "/" + kind + "/" + contestant;
  }

  String render(List<BenchDb> dbs, List<Integer> sizes) {
    boolean jobs = drain.kinds().get(0) != Floor.Kind.OUTBOX;
    String unit = jobs ? "jobs" : "msg";
    StringBuilder md = new StringBuilder();
    md.append(
            jobs ? "### W1 backlog drain (durable jobs)\n\n" : "### W1 backlog drain (outbox)\n\n")
        .append(
            jobs
                ? "N jobs pre-inserted, a no-op handler that counts; jobs/s until none is pending."
                    + " \"done\" keeps finished rows (`UPDATE … state = 1`, Postbox's default"
                    + " retention of 1 day); \"delete\" deletes them (floor: `DELETE`; Postbox:"
                    + " `retention(Duration.ZERO)`)."
                : "N messages pre-inserted, a no-op transport that counts; messages/s until the"
                    + " table is empty.")
        .append(
            " The floor is the best of the hand-written loops of the grid below (threads ×"
                + " batch; each thread its own connection). Client CPU: this process's CPU time"
                + " during the drain per row (the database server's not included), and the part of"
                + " it the JIT compiler threads used (Linux only). Targets: ≥ 0.7×"
                + " the best floor at the defaults and ≥ 0.9× with the large-backlog setting on"
                + " PostgreSQL and MariaDB, ≥ 0.9× on SQLite; client CPU ≤ 1.5× the floor's.\n\n");
    MarkdownTable main =
        new MarkdownTable(
            "database",
            unit,
            "table",
            "best floor",
            "floor " + unit + "/s",
            "Postbox " + unit + "/s",
            "÷",
            "met",
            "large backlog " + unit + "/s",
            "÷ ",
            "met ",
            "client CPU µs/" + unit + " floor / Postbox / large",
            "of which JIT compiler threads");
    MarkdownTable grid = new MarkdownTable(gridHeaders(jobs));
    MarkdownTable transports =
        new MarkdownTable(
            "database",
            unit,
            "table",
            "defaults " + unit + "/s",
            "sendBatch " + unit + "/s",
            "1 ms sends, concurrency " + DrainVariant.SLOW_SEND_CONCURRENCY + ", " + unit + "/s",
            "target",
            "met",
            "the JDK alone, sends/s",
            "÷ min(no-op, the JDK alone)");
    MarkdownTable kept =
        new MarkdownTable(
            "database",
            unit,
            "best floor",
            "floor " + unit + "/s",
            "defaults " + unit + "/s",
            "keepDelivered 1 h " + unit + "/s",
            "÷ defaults",
            "client CPU µs/" + unit + " floor / defaults / keepDelivered",
            "cleanup rows/s",
            "cleanup client CPU µs/row");
    for (BenchDb db : dbs) {
      for (int n : drain.sizes(db, sizes)) {
        for (Floor.Kind kind : drain.kinds()) {
          row(db, n, kind, main, grid, transports, jobs);
          if (kind == Floor.Kind.OUTBOX) {
            keptRow(db, n, kept);
          }
        }
      }
    }
    md.append(main).append('\n');
    md.append("Every floor of the grid (")
        .append(unit)
        .append("/s, medians)")
        .append(
            jobs
                ? ".\n\n"
                : "; \"minimal\" drains a table of `id` primary key, `payload` and a lease column"
                    + " with no other index, so best ÷ minimal is what the shipped schema costs"
                    + " (its unique event id and claim index, maintained on every insert and"
                    + " delete).\n\n")
        .append(grid)
        .append('\n');
    md.append("Postbox's transports: the defaults with `send`, with a transport that overrides")
        .append(" `sendBatch`, and with a `send` that waits 1 ms (I/O-bound, like a broker's")
        .append(" round trip). Target for 1 ms sends: ≥ 0.9 × the lower of concurrency × 1,000/s")
        .append(" and the no-op figure. The JDK alone: the same 1 ms sends on as many virtual")
        .append(" threads at once, one per send, with no database and no queue, measured beside")
        .append(" them: what the sends can reach at best on this machine; the last column holds")
        .append(" Postbox's 1 ms sends against the lower of that and the no-op drain.\n\n")
        .append(transports)
        .append('\n');
    if (!jobs && config.drainVariants().contains(DrainVariant.KEEP_DELIVERED)) {
      md.append("`keepDelivered(Duration.ofHours(1))` beside the defaults: each delivered row is")
          .append(
              " kept as done (an UPDATE) instead of deleted. The cleanup's DELETE of those rows")
          .append(" comes after the window; here it is timed after each drain (1,000 rows per")
          .append(" statement, from the cleanup dispatcher's start until the table is empty).\n\n")
          .append(kept)
          .append('\n');
    }
    return md.toString();
  }

  private String[] gridHeaders(boolean jobs) {
    List<String> h = new ArrayList<>(List.of("database", jobs ? "jobs" : "msg", "table"));
    h.addAll(drain.floors());
    if (!jobs) {
      for (String f : drain.floors()) {
        if (isMinimalBatch(f)) {
          h.add(Drain.MINIMAL + " " + f);
        }
      }
      h.add("best ÷ best minimal");
    }
    return h.toArray(String[]::new);
  }

  /** True if floor {@code name} ran on the minimal table too (the grid's largest batch). */
  private boolean isMinimalBatch(String name) {
    int batch = config.floorBatches().stream().mapToInt(Integer::intValue).max().orElse(100);
    return name.endsWith("×" + batch);
  }

  private void row(
      BenchDb db,
      int n,
      Floor.Kind kind,
      MarkdownTable main,
      MarkdownTable grid,
      MarkdownTable transports,
      boolean jobs) {
    String best = bestFloor(db, n, kind);
    double bestRate = best == null ? Double.NaN : median(db, n, kind, best);
    List<String> cells = new ArrayList<>(List.of(db.name(), String.format("%,d", n), table(kind)));
    for (String f : drain.floors()) {
      cells.add(Stats.rate(median(db, n, kind, f)));
    }
    if (!jobs) {
      double bestMinimal = Double.NaN;
      for (String f : drain.floors()) {
        if (isMinimalBatch(f)) {
          double r = median(db, n, kind, Drain.MINIMAL + " " + f);
          cells.add(Stats.rate(r));
          bestMinimal = Double.isNaN(bestMinimal) || r > bestMinimal ? r : bestMinimal;
        }
      }
      cells.add(Stats.ratio(bestRate / bestMinimal));
    }
    grid.row(cells.toArray(String[]::new));

    double defaults = median(db, n, kind, postbox(DrainVariant.DEFAULTS));
    double large = median(db, n, kind, postbox(DrainVariant.LARGE));
    double target = defaultTarget(db.database());
    double largeTarget = largeTarget(db.database());
    main.row(
        db.name(),
        String.format("%,d", n),
        table(kind),
        best == null ? "–" : best,
        Stats.rate(bestRate),
        Stats.rate(defaults),
        Stats.ratio(defaults / bestRate),
        Double.isNaN(target) ? "–" : Stats.met(defaults / bestRate, target, true),
        Stats.rate(large),
        Stats.ratio(large / bestRate),
        Double.isNaN(largeTarget) ? "–" : Stats.met(large / bestRate, largeTarget, true),
        cpu(db, n, kind, best, "/cpu")
            + " / "
            + cpu(db, n, kind, postbox(DrainVariant.DEFAULTS), "/cpu")
            + " / "
            + cpu(db, n, kind, postbox(DrainVariant.LARGE), "/cpu"),
        cpu(db, n, kind, best, "/jit")
            + " / "
            + cpu(db, n, kind, postbox(DrainVariant.DEFAULTS), "/jit")
            + " / "
            + cpu(db, n, kind, postbox(DrainVariant.LARGE), "/jit"));

    double slow = median(db, n, kind, postbox(DrainVariant.SLOW_SEND));
    double ceiling = median(db, n, kind, SlowSends.CEILING);
    double slowTarget = 0.9 * Math.min(DrainVariant.SLOW_SEND_CONCURRENCY * 1_000.0, defaults);
    transports.row(
        db.name(),
        String.format("%,d", n),
        table(kind),
        Stats.rate(defaults),
        kind == Floor.Kind.OUTBOX
            ? Stats.rate(median(db, n, kind, postbox(DrainVariant.SEND_BATCH)))
            : "–",
        Stats.rate(slow),
        "≥ " + Stats.rate(slowTarget),
        Stats.met(slow, slowTarget, true),
        Stats.rate(ceiling),
        Stats.ratio(slow / Math.min(defaults, ceiling)));
  }

  private void keptRow(BenchDb db, int n, MarkdownTable kept) {
    Floor.Kind kind = Floor.Kind.OUTBOX;
    String best = bestFloor(db, n, kind);
    String keep = postbox(DrainVariant.KEEP_DELIVERED);
    double defaults = median(db, n, kind, postbox(DrainVariant.DEFAULTS));
    double keepRate = median(db, n, kind, keep);
    kept.row(
        db.name(),
        String.format("%,d", n),
        best == null ? "–" : best,
        Stats.rate(best == null ? Double.NaN : median(db, n, kind, best)),
        Stats.rate(defaults),
        Stats.rate(keepRate),
        Stats.ratio(keepRate / defaults),
        cpu(db, n, kind, best, "/cpu")
            + " / "
            + cpu(db, n, kind, postbox(DrainVariant.DEFAULTS), "/cpu")
            + " / "
            + cpu(db, n, kind, keep, "/cpu"),
        Stats.rate(median(db, n, kind, keep + "/cleanup")),
        cpu(db, n, kind, keep, "/cleanupCpu"));
  }

  /** The floor of the grid with the highest median, or null if none finished. */
  private String bestFloor(BenchDb db, int n, Floor.Kind kind) {
    String best = null;
    double bestRate = Double.NaN;
    for (String f : drain.floors()) {
      double r = median(db, n, kind, f);
      if (!Double.isNaN(r) && (Double.isNaN(bestRate) || r > bestRate)) {
        best = f;
        bestRate = r;
      }
    }
    return best;
  }

  private static String table(Floor.Kind kind) {
    return switch (kind) {
      case OUTBOX -> "outbox";
      case JOBS_DONE -> "jobs, done kept";
      case JOBS_DELETE -> "jobs, deleted";
      case MINIMAL -> "minimal";
    };
  }

  private static String postbox(DrainVariant v) {
    return Drain.POSTBOX + " " + v.label();
  }

  /** The median of a contestant's {@code figure} ("/cpu" or "/jit"), µs per row. */
  private String cpu(BenchDb db, int n, Floor.Kind kind, String contestant, String figure) {
    return contestant == null
        ? "–"
        : Stats.decimal(
            Stats.median(results.getOrDefault(key(db, n, kind, contestant) + figure, List.of())),
            1);
  }

  private double median(BenchDb db, int n, Floor.Kind kind, String contestant) {
    return Stats.median(results.getOrDefault(key(db, n, kind, contestant), List.of()));
  }

  /** Postbox ÷ best floor at the defaults must reach this on {@code database}; NaN if no target. */
  static double defaultTarget(Database database) {
    return switch (database) {
      case POSTGRESQL, MYSQL -> 0.7;
      case SQLITE -> 0.9;
      case H2 -> Double.NaN;
    };
  }

  /** Postbox ÷ best floor with the large-backlog setting must reach this; NaN if no target. */
  static double largeTarget(Database database) {
    return database == Database.H2 ? Double.NaN : 0.9;
  }
}
