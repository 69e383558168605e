package dev.postbox.bench;

import dev.postbox.Database;
import dev.postbox.Message;
import dev.postbox.Outbox;
import dev.postbox.PostboxException;
import dev.postbox.bench.PerformanceHarness.Wake;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * W2, produce and deliver: producer threads commit transactions of one business row and one message
 * while the dispatcher runs; end-to-end messages/s (first commit to last row deleted),
 * commit-to-delivery latency p50/p99, and the process's CPU while the dispatcher sits idle
 * afterwards. Postbox: {@code outbox.add} and {@code dispatcher.wakeUp()} after commit; the floor:
 * a hand-written INSERT (prepared in each transaction, as W0's (b)) and a condition its single loop
 * waits on.
 */
final class ProduceDeliver {
  private static final String[] METRICS = {"rate", "p50", "p99", "idle", "machine"};

  private final PerformanceHarness h;
  private final AtomicLong retries = new AtomicLong();

  ProduceDeliver(PerformanceHarness h) {
    this.h = h;
  }

  /** {@code machineCpu}: µs of CPU per message, every process (the database too), Linux only. */
  private record Result(double rate, double p50, double p99, double idleCpu, double machineCpu) {}

  /**
   * Unmeasured runs of both sides on every wake-up path. Before W2 one full-size run each: after
   * the short warm-up, Postbox's first measured repetition still spent 0.8–1.3 s of CPU in the JIT
   * compiler threads (the floor's first, 0.2–0.4 s) and ran 8–14% slower than its later ones.
   */
  void warmUp(BenchDb db) {
    int perProducer =
        h.config.workloads().contains(PerformanceHarness.Workload.W2)
            ? h.config.transactions()
            : Math.max(1, h.config.warmupSize() / h.config.producers() / 5);
    for (Wake wake : wakes(db)) {
      measure(db, false, wake, perProducer, Duration.ZERO, "warm-up");
      measure(db, true, wake, perProducer, Duration.ZERO, "warm-up");
    }
  }

  /** The configured wake-up paths that {@code db} has (NOTIFY only on PostgreSQL). */
  private List<Wake> wakes(BenchDb db) {
    return h.config.wakes().stream()
        .filter(w -> w != Wake.NOTIFY || db.database() == Database.POSTGRESQL)
        .toList();
  }

  String run(List<BenchDb> dbs) {
    Map<String, List<Double>> values = new LinkedHashMap<>();
    for (BenchDb db : dbs) {
      for (Wake wake : wakes(db)) {
        for (int rep = 0; rep < h.config.repetitions(); rep++) {
          for (boolean postbox : PerformanceHarness.interleaved(List.of(false, true), rep)) {
            Result r =
                measure(
                    db,
                    postbox,
                    wake,
                    h.config.transactions(),
                    h.config.idleWindow(),
                    "rep " + (rep + 1));
            double[] v = {r.rate(), r.p50(), r.p99(), r.idleCpu(), r.machineCpu()};
            for (int i = 0; i < METRICS.length; i++) {
              values
                  .computeIfAbsent(key(db, wake, postbox, METRICS[i]), k -> new ArrayList<>())
                  .add(v[i]);
            }
          }
        }
      }
    }
    return table(dbs, values);
  }

  private Result measure(
      BenchDb db, boolean postbox, Wake wake, int perProducer, Duration idleWindow, String label) {
    String name = postbox ? "Postbox" : "floor";
    String what = "W2 " + db.name() + " " + wake + " " + name + " " + label;
    int total = h.config.producers() * perProducer;
    Deliveries d = new Deliveries(total);
    Progress p = new Progress(total);
    W2Contestant contestant = null;
    try {
      db.reset();
      contestant = W2Contestant.start(h, db, postbox, wake, d, p, retries);
      Thread.sleep(200); // the dispatcher's first, empty claim is done: it waits like in production
      long machineBefore = PerformanceHarness.machineCpuMicros();
      long start = System.nanoTime();
      Producers.run(
          db,
          h.config.producers(),
          perProducer,
          contestant.enqueuer(),
          contestant.afterCommit(),
          retries);
      p.await(h.config.timeout(), total + " messages");
      long nanos = System.nanoTime() - start;
      double machine =
          machineBefore < 0
              ? Double.NaN
              : (PerformanceHarness.machineCpuMicros() - machineBefore) / (double) total;
      double idle = Double.NaN;
      if (!idleWindow.isZero()) {
        Thread.sleep(500);
        var cpu = PerformanceHarness.cpuSnapshot();
        long wall = System.nanoTime();
        Thread.sleep(idleWindow.toMillis());
        idle = PerformanceHarness.cpuSince(cpu) / 1e6 / ((System.nanoTime() - wall) / 1e9);
      }
      long[] latencies = d.latencies();
      Result r =
          new Result(
              total / (nanos / 1e9),
              Stats.percentile(latencies, 50),
              Stats.percentile(latencies, 99),
              idle,
              machine);
      h.log(
          "%s: %s msg/s, p50 %s ms, p99 %s ms, idle CPU %s ms/s, machine CPU %s µs/msg",
          what,
          Stats.rate(r.rate()),
          Stats.millis(r.p50()),
          Stats.millis(r.p99()),
          Stats.decimal(r.idleCpu(), 1),
          Stats.decimal(r.machineCpu(), 1));
      return r;
    } catch (Exception e) {
      h.problem(what + ": failed: " + e);
      return new Result(Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN);
    } finally {
      Throwable floorFailure = contestant == null ? null : contestant.stop();
      if (floorFailure != null) {
        h.problem(what + ": floor loop failed: " + floorFailure);
      }
      String problems = d.problems();
      if (!problems.isEmpty()) {
        h.problem(what + ": " + problems);
      }
      long remaining = db.count("SELECT COUNT(*) FROM postbox_outbox");
      long orders = db.count("SELECT COUNT(*) FROM " + BenchDb.BUSINESS);
      if (remaining != 0 || orders != total) {
        h.problem(
            what + ": " + remaining + " messages left, " + orders + " of " + total + " orders");
      }
    }
  }

  /** {@code outbox.add} as most callers write it: the event id generated by Postbox. */
  static void add(Outbox outbox, Connection c, int index) throws SQLException {
    add(outbox, c, Message.of("order.placed", Deliveries.payload(index)), index);
  }

  /** {@code outbox.add} with the caller's own event id, which may be stored already. */
  static void addWithEventId(Outbox outbox, Connection c, int index) throws SQLException {
    add(
        outbox,
        c,
        Message.of("order.placed", Deliveries.payload(index)).eventId(Deliveries.eventId(index)),
        index);
  }

  private static void add(Outbox outbox, Connection c, Message message, int index)
      throws SQLException {
    try {
      outbox.add(c, message.key("customer-" + index % 100));
    } catch (PostboxException e) {
      if (e.getCause() instanceof SQLException s) {
        throw s; // lets the producer retry a deadlock like it does for its own statements
      }
      throw e;
    }
  }

  private static String key(BenchDb db, Wake wake, boolean postbox, String metric) {
    return db.name() + "/" + wake + "/" + (postbox ? "Postbox" : "floor") + "/" + metric;
  }

  private String table(List<BenchDb> dbs, Map<String, List<Double>> v) {
    MarkdownTable t =
        new MarkdownTable(
            "database",
            "wake-up",
            "floor msg/s",
            "Postbox msg/s",
            "÷ (≥ 0.95×)",
            "floor p50 / p99 ms",
            "Postbox p50 / p99 ms",
            "≤ 2 / 15 ms",
            "idle CPU floor / Postbox ms/s",
            "machine CPU floor / Postbox µs/msg");
    for (BenchDb db : dbs) {
      for (Wake wake : wakes(db)) {
        double floor = median(v, key(db, wake, false, "rate"));
        double postbox = median(v, key(db, wake, true, "rate"));
        double p50 = median(v, key(db, wake, true, "p50"));
        double p99 = median(v, key(db, wake, true, "p99"));
        String latencyTarget =
            db.database() != Database.POSTGRESQL || wake == Wake.NONE || Double.isNaN(p50)
                ? "–"
                : (p50 <= 2e6 && p99 <= 15e6 ? "yes" : "**no**");
        t.row(
            db.name(),
            switch (wake) {
              case IN_PROCESS -> "wakeUp()";
              case NOTIFY -> "NOTIFY";
              case NONE -> "poll";
            },
            Stats.rate(floor),
            Stats.rate(postbox),
            Stats.ratio(postbox / floor) + " " + Stats.met(postbox / floor, 0.95, true),
            Stats.millis(median(v, key(db, wake, false, "p50")))
                + " / "
                + Stats.millis(median(v, key(db, wake, false, "p99"))),
            Stats.millis(p50) + " / " + Stats.millis(p99),
            latencyTarget,
            Stats.decimal(median(v, key(db, wake, false, "idle")), 1)
                + " / "
                + Stats.decimal(median(v, key(db, wake, true, "idle")), 1),
            Stats.decimal(median(v, key(db, wake, false, "machine")), 1)
                + " / "
                + Stats.decimal(median(v, key(db, wake, true, "machine")), 1));
      }
    }
    return "### W2 produce and deliver\n\n"
        + String.format(
            "%d producer threads × %,d transactions (one business row + one message each), the"
                + " dispatcher running; messages/s from the first commit until the table is empty;"
                + " latency from commit (producer) to delivery (transport). Wake-up: `wakeUp()` ="
                + " `dispatcher.wakeUp()` after each commit (floor: a condition its loop waits on);"
                + " NOTIFY = `Outbox.builder().notifyDispatchers(true)` and the dispatcher's LISTEN (floor:"
                + " `pg_notify` inside its INSERT statement and a hand-written LISTEN loop); poll ="
                + " neither. Idle CPU: the whole process's CPU time per second over %d ms after the"
                + " last delivery, the dispatcher idle (per-thread schedstat). Machine CPU: the"
                + " busy CPU time of the whole machine (producers, dispatcher, database; from"
                + " /proc/stat) from the first commit to the last delivery, per message.%n%n",
            h.config.producers(), h.config.transactions(), h.config.idleWindow().toMillis())
        + t;
  }

  private static double median(Map<String, List<Double>> v, String key) {
    return Stats.median(v.getOrDefault(key, List.of()));
  }
}
