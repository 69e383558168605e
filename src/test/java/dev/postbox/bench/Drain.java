package dev.postbox.bench;

import dev.postbox.Database;
import dev.postbox.Dispatcher;
import dev.postbox.JobHandler;
import dev.postbox.Jobs;
import dev.postbox.Outbox;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * W1, backlog drain: {@code n} rows pre-inserted, a no-op consumer that only counts, rows per
 * second from the first claim until every row is deleted (outbox) or finished (jobs). The outbox
 * pits Postbox against the floor; the job queue does the same for both of its retention modes (done
 * rows kept, the default, and deleted at once).
 */
final class Drain {
  private final PerformanceHarness h;
  private final boolean jobs;
  private final AtomicLong retries = new AtomicLong();

  /** Runs until the rows are all finished; returns the elapsed nanoseconds. */
  private interface Runner {
    long run(BenchDb db, int n, Deliveries d, Progress p) throws Exception;
  }

  private record Contestant(String name, Runner runner, Floor.Kind kind) {}

  Drain(PerformanceHarness h, boolean jobs) {
    this.h = h;
    this.jobs = jobs;
  }

  private List<Contestant> contestants() {
    List<Contestant> list = new ArrayList<>();
    if (jobs) {
      list.add(
          new Contestant(
              "floor done", floor(Floor.Kind.JOBS_DONE, Floor.Order.DUE), Floor.Kind.JOBS_DONE));
      list.add(
          new Contestant("Postbox done", postboxJobs(Duration.ofDays(1)), Floor.Kind.JOBS_DONE));
      list.add(
          new Contestant(
              "floor delete",
              floor(Floor.Kind.JOBS_DELETE, Floor.Order.DUE),
              Floor.Kind.JOBS_DELETE));
      list.add(
          new Contestant("Postbox delete", postboxJobs(Duration.ZERO), Floor.Kind.JOBS_DELETE));
    } else {
      list.add(
          new Contestant("floor", floor(Floor.Kind.OUTBOX, Floor.Order.DUE), Floor.Kind.OUTBOX));
      list.add(new Contestant("Postbox", postboxOutbox(), Floor.Kind.OUTBOX));
      if (h.config.floorById()) {
        list.add(
            new Contestant(
                "floor by id", floor(Floor.Kind.OUTBOX, Floor.Order.ID), Floor.Kind.OUTBOX));
      }
    }
    return list;
  }

  /** Drains {@code n} rows once with each contestant, recording nothing but problems. */
  void warmUp(BenchDb db, int n) {
    for (Contestant c : contestants()) {
      measure(db, n, c, "warm-up");
    }
  }

  String run(List<BenchDb> dbs) {
    List<Integer> sizes = jobs ? h.config.jobSizes() : h.config.drainSizes();
    Map<String, List<Double>> rates = new LinkedHashMap<>();
    for (BenchDb db : dbs) {
      for (int n : sizes(db, sizes)) {
        for (int rep = 0; rep < h.config.repetitions(); rep++) {
          for (Contestant c : PerformanceHarness.interleaved(contestants(), rep)) {
            double[] r = measure(db, n, c, "rep " + (rep + 1));
            rates.computeIfAbsent(key(db, n, c.name()), k -> new ArrayList<>()).add(r[0]);
            rates.computeIfAbsent(key(db, n, c.name()) + "/cpu", k -> new ArrayList<>()).add(r[1]);
          }
        }
      }
    }
    return jobs ? jobsTable(dbs, sizes, rates) : outboxTable(dbs, sizes, rates);
  }

  /** One drain; returns rows/s and this process's CPU microseconds per row. */
  private double[] measure(BenchDb db, int n, Contestant c, String label) {
    String what = (jobs ? "jobs W1 " : "W1 ") + db.name() + " " + n + " " + c.name() + " " + label;
    try {
      db.reset();
      if (jobs) {
        db.seedJobs(n);
      } else {
        db.seedOutbox(n);
      }
      Deliveries d = new Deliveries(n);
      Progress p = new Progress(n);
      var cpu = PerformanceHarness.cpuSnapshot();
      long nanos = c.runner().run(db, n, d, p);
      double cpuPerRow = PerformanceHarness.cpuSince(cpu) / 1e3 / n;
      String problems = d.problems();
      if (!problems.isEmpty()) {
        h.problem(what + ": " + problems);
      }
      String left =
          c.kind() == Floor.Kind.JOBS_DONE
              ? "SELECT COUNT(*) FROM postbox_jobs WHERE state <> 1"
              : "SELECT COUNT(*) FROM " + c.kind().table;
      long remaining = db.count(left);
      if (remaining != 0) {
        h.problem(what + ": " + remaining + " rows not finished");
      }
      double rate = n / (nanos / 1e9);
      h.log(
          "%s: %s rows/s (%d ms), client CPU %s µs/row",
          what, Stats.rate(rate), nanos / 1_000_000, Stats.decimal(cpuPerRow, 1));
      return new double[] {rate, cpuPerRow};
    } catch (Exception e) {
      h.problem(what + ": failed: " + e);
      return new double[] {Double.NaN, Double.NaN};
    }
  }

  private Runner floor(Floor.Kind kind, Floor.Order order) {
    return (db, n, d, p) -> {
      long start = System.nanoTime();
      Floor.run(
          db,
          kind,
          h.config.batchSize(),
          order,
          row -> d.delivered(row.index()),
          p,
          null,
          h.config.pollInterval(),
          () -> false,
          retries);
      return System.nanoTime() - start;
    };
  }

  private Runner postboxOutbox() {
    return (db, n, d, p) -> {
      // the floor keeps no order: neither does this (the ordered drain is its own workload)
      Outbox outbox = Outbox.builder().orderedByKey(false).build();
      Dispatcher dispatcher =
          h.dispatcher(db.dataSource(), p).outbox(outbox, h.countingTransport(d)).build();
      return timed(dispatcher, p, n);
    };
  }

  private Runner postboxJobs(Duration retention) {
    return (db, n, d, p) -> {
      Jobs queue = Jobs.builder().retention(retention).build();
      JobHandler noop =
          new JobHandler() {
            @Override
            public String name() {
              return "bench-noop";
            }

            @Override
            public void execute(String payload) {
              d.delivered(Deliveries.indexOfPayload(payload));
            }
          };
      return timed(h.dispatcher(db.dataSource(), p).jobs(queue, noop).build(), p, n);
    };
  }

  private long timed(Dispatcher dispatcher, Progress p, int n) throws InterruptedException {
    long start = System.nanoTime();
    dispatcher.start();
    try {
      p.await(h.config.timeout(), n + " rows");
      return System.nanoTime() - start;
    } finally {
      dispatcher.close();
    }
  }

  private List<Integer> sizes(BenchDb db, List<Integer> sizes) {
    return db.database() != Database.H2
        ? sizes
        : sizes.stream().filter(n -> n <= h.config.h2Limit()).toList();
  }

  private static String cpu(Map<String, List<Double>> r, BenchDb db, int n, String contestant) {
    return Stats.decimal(median(r, key(db, n, contestant) + "/cpu"), 1);
  }

  private static String key(BenchDb db, int n, String contestant) {
    return db.name() + "/" + n + "/" + contestant;
  }

  private static double median(Map<String, List<Double>> rates, String key) {
    return Stats.median(rates.getOrDefault(key, List.of()));
  }

  private String outboxTable(List<BenchDb> dbs, List<Integer> sizes, Map<String, List<Double>> r) {
    MarkdownTable t =
        new MarkdownTable(
            "database",
            "messages",
            "floor msg/s",
            "Postbox msg/s",
            "Postbox ÷ floor",
            "target",
            "met",
            "client CPU µs/msg floor / Postbox",
            "floor by id msg/s");
    for (BenchDb db : dbs) {
      for (int n : sizes(db, sizes)) {
        double floor = median(r, key(db, n, "floor"));
        double postbox = median(r, key(db, n, "Postbox"));
        double target = target(db.database());
        t.row(
            db.name(),
            String.format("%,d", n),
            Stats.rate(floor),
            Stats.rate(postbox),
            Stats.ratio(postbox / floor),
            Double.isNaN(target) ? "–" : "≥ " + Stats.ratio(target),
            Double.isNaN(target) ? "–" : Stats.met(postbox / floor, target, true),
            cpu(r, db, n, "floor") + " / " + cpu(r, db, n, "Postbox"),
            Stats.rate(median(r, key(db, n, "floor by id"))));
      }
    }
    return "### W1 backlog drain (outbox)\n\n"
        + "N messages pre-inserted, a no-op transport that counts; messages/s until the table is"
        + " empty. The floor claims `ORDER BY available_at, id` like Postbox; \"floor by id\""
        + " claims `ORDER BY id`. Client CPU: this process's CPU time during the drain per message"
        + " (the database server's CPU not included).\n\n"
        + t;
  }

  private String jobsTable(List<BenchDb> dbs, List<Integer> sizes, Map<String, List<Double>> r) {
    MarkdownTable t =
        new MarkdownTable(
            "database",
            "jobs",
            "floor done/s",
            "Postbox done/s",
            "÷",
            "floor delete/s",
            "Postbox delete/s",
            "÷ ",
            "client CPU µs/job: floor / Postbox done, floor / Postbox delete");
    for (BenchDb db : dbs) {
      for (int n : sizes(db, sizes)) {
        double fd = median(r, key(db, n, "floor done"));
        double pd = median(r, key(db, n, "Postbox done"));
        double fx = median(r, key(db, n, "floor delete"));
        double px = median(r, key(db, n, "Postbox delete"));
        t.row(
            db.name(),
            String.format("%,d", n),
            Stats.rate(fd),
            Stats.rate(pd),
            Stats.ratio(pd / fd),
            Stats.rate(fx),
            Stats.rate(px),
            Stats.ratio(px / fx),
            cpu(r, db, n, "floor done")
                + " / "
                + cpu(r, db, n, "Postbox done")
                + ", "
                + cpu(r, db, n, "floor delete")
                + " / "
                + cpu(r, db, n, "Postbox delete"));
      }
    }
    return "### W1 backlog drain (durable jobs)\n\n"
        + "N jobs pre-inserted, a no-op handler that counts; jobs/s until none is pending. \"done\""
        + " keeps finished rows (`UPDATE … state = 1`, Postbox's default retention of 1 day);"
        + " \"delete\" deletes them (floor: `DELETE`; Postbox: `retention(Duration.ZERO)`).\n\n"
        + t;
  }

  /** The W1 target for {@code database}: Postbox ÷ floor at least this; NaN if none. */
  static double target(Database database) {
    return switch (database) {
      case POSTGRESQL -> 0.8;
      case MYSQL, SQLITE -> 0.7;
      case H2 -> Double.NaN;
    };
  }
}
