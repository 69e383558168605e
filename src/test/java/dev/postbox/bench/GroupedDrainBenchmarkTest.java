package dev.postbox.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.postbox.Database;
import dev.postbox.Dispatcher;
import dev.postbox.Job;
import dev.postbox.JobHandler;
import dev.postbox.Jobs;
import dev.postbox.testing.Sql;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Limits and groups beside plain jobs (docs/jobs.md#limits-and-groups):
 *
 * <ul>
 *   <li>the drain of {@code bench.groupedJobs} (50,000) no-op jobs over {@code bench.groups}
 *       (1,000) groups, enqueued group after group, at the dispatcher's defaults: without a group,
 *       grouped without a limit, and grouped with {@code limitPerGroup(2)}, alternating, {@code
 *       bench.reps} (3) rounds, medians;
 *   <li>the fairness scenario: one group with {@code bench.backlog} (100,000) due jobs of 5 ms and
 *       20 groups trickling 5 jobs/s each for 20 s; the trickling jobs' pickup latency (enqueue
 *       commit to handler start) beside the same trickle on an otherwise empty table, and beside
 *       the backlog without groups; the dispatcher's {@code batchSize} is {@code bench.fairBatch}
 *       (500, the default).
 * </ul>
 *
 * <pre>mvn -B test -Pbench -Dtest=GroupedDrainBenchmarkTest -Dbench.db=postgresql,mariadb</pre>
 *
 * Asserts correctness only: every job ran.
 */
@Tag("bench")
class GroupedDrainBenchmarkTest {
  private static final int TRICKLING_GROUPS = 20;
  private static final long TRICKLE_MILLIS = 20_000;
  private static final long TRICKLE_EVERY_MILLIS = 200;

  private final int jobs = Integer.getInteger("bench.groupedJobs", 50_000);
  private final int groups = Integer.getInteger("bench.groups", 1_000);
  private final int reps = Integer.getInteger("bench.reps", 3);
  private final int backlog = Integer.getInteger("bench.backlog", 100_000);
  private final int fairBatch = Integer.getInteger("bench.fairBatch", 500);

  @Test
  void benchmark() throws Exception {
    StringBuilder md = new StringBuilder();
    for (String name : System.getProperty("bench.db", "postgresql,mariadb").split(",")) {
      Database database =
          switch (name.trim()) {
            case "postgresql" -> Database.POSTGRESQL;
            case "mariadb" -> Database.MYSQL;
            case "sqlite" -> Database.SQLITE;
            case "h2" -> Database.H2;
            default -> throw new IllegalArgumentException("unknown database " + name);
          };
      try (BenchDb db = BenchDb.open(database)) {
        md.append(drains(db)).append('\n');
        if (!Boolean.getBoolean("bench.skipFairness")) {
          md.append(fairness(db)).append('\n');
        }
      }
    }
    System.out.println(md);
  }

  private enum Variant {
    PLAIN("no group"),
    GROUPED("grouped, no limit"),
    LIMITED("grouped, limitPerGroup(2)");

    final String label;

    Variant(String label) {
      this.label = label;
    }
  }

  private String drains(BenchDb db) throws Exception {
    drain(db, Variant.LIMITED, Math.min(jobs, 10_000)); // warm-up
    drain(db, Variant.PLAIN, Math.min(jobs, 10_000));
    Map<Variant, List<Double>> rates = new LinkedHashMap<>();
    for (int rep = 0; rep < reps; rep++) {
      List<Variant> order = new ArrayList<>(List.of(Variant.values()));
      if (rep % 2 == 1) {
        java.util.Collections.reverse(order);
      }
      for (Variant v : order) {
        double rate = drain(db, v, jobs);
        System.out.printf("%s %s %d: %.0f jobs/s%n", db.name(), v.label, jobs, rate);
        rates.computeIfAbsent(v, k -> new ArrayList<>()).add(rate);
      }
    }
    StringBuilder md = new StringBuilder();
    md.append(
        String.format(
            "%s: drain of %,d jobs over %,d groups, medians of %d%n%n",
            db.name(), jobs, groups, reps));
    md.append("| jobs | jobs/s | ÷ no group | ÷ grouped, no limit |\n|---|---|---|---|\n");
    double plain = median(rates.get(Variant.PLAIN));
    double grouped = median(rates.get(Variant.GROUPED));
    for (Variant v : Variant.values()) {
      double r = median(rates.get(v));
      md.append(
          String.format("| %s | %,.0f | %.2f× | %.2f× |%n", v.label, r, r / plain, r / grouped));
    }
    return md.toString();
  }

  /** Enqueues {@code n} jobs of {@code v}, then drains them; returns jobs/s. */
  private double drain(BenchDb db, Variant v, int n) throws Exception {
    db.reset();
    Jobs jobs =
        v == Variant.LIMITED ? Jobs.builder().limitPerGroup(2).build() : Jobs.builder().build();
    int perGroup = Math.max(1, n / groups);
    List<Job> batch = new ArrayList<>(500);
    for (int i = 0; i < n; i++) {
      Job job = Job.of("bench", "{}");
      batch.add(v == Variant.PLAIN ? job : job.group("tenant-" + i / perGroup));
      if (batch.size() == 500 || i == n - 1) {
        List<Job> chunk = List.copyOf(batch);
        Sql.commit(db.dataSource(), c -> jobs.enqueueAll(c, chunk));
        batch.clear();
      }
    }
    CountDownLatch done = new CountDownLatch(n);
    Dispatcher d =
        Dispatcher.builder(db.dataSource())
            .jobs(jobs, JobHandler.of("bench", job -> done.countDown()))
            .instanceId("bench-" + v.name().toLowerCase())
            .build();
    long start = System.nanoTime();
    d.start();
    boolean all = done.await(10, TimeUnit.MINUTES);
    long nanos = System.nanoTime() - start;
    d.close();
    assertEquals(true, all, v.label + ": every job ran");
    return n / (nanos / 1e9);
  }

  private String fairness(BenchDb db) throws Exception {
    double[] empty = trickle(db, Backlog.NONE);
    double[] grouped = trickle(db, Backlog.ONE_GROUP);
    double[] plain = trickle(db, Backlog.NO_GROUP);
    StringBuilder md = new StringBuilder();
    md.append(
        String.format(
            "%s: %d groups trickling 5 jobs/s each for %d s, batchSize(%d); pickup latency (ms)%n%n",
            db.name(), TRICKLING_GROUPS, TRICKLE_MILLIS / 1000, fairBatch));
    md.append("| beside | p50 | p99 | max |\n|---|---|---|---|\n");
    md.append(row("an empty table", empty));
    md.append(row(String.format("%,d due jobs of one group", backlog), grouped));
    md.append(
        row(String.format("%,d due jobs, no groups (first come, first served)", backlog), plain));
    return md.toString();
  }

  private static String row(String label, double[] p) {
    return String.format("| %s | %.0f | %.0f | %.0f |%n", label, p[0], p[1], p[2]);
  }

  private enum Backlog {
    NONE,
    ONE_GROUP,
    NO_GROUP
  }

  /** The trickle's pickup latencies (p50, p99, max in ms), beside a backlog of 5 ms jobs. */
  private double[] trickle(BenchDb db, Backlog kind) throws Exception {
    db.reset();
    Jobs jobs = Jobs.builder().build();
    boolean plainBacklog = kind == Backlog.NO_GROUP;
    if (kind != Backlog.NONE) {
      List<Job> batch = new ArrayList<>(500);
      for (int i = 0; i < backlog; i++) {
        Job job = Job.of("slow", "{}");
        batch.add(plainBacklog ? job : job.group("big"));
        if (batch.size() == 500 || i == backlog - 1) {
          List<Job> chunk = List.copyOf(batch);
          Sql.commit(db.dataSource(), c -> jobs.enqueueAll(c, chunk));
          batch.clear();
        }
      }
    }
    ConcurrentLinkedQueue<Long> latencies = new ConcurrentLinkedQueue<>();
    AtomicInteger picked = new AtomicInteger();
    Dispatcher d =
        Dispatcher.builder(db.dataSource())
            .jobs(
                jobs,
                JobHandler.of("slow", job -> Thread.sleep(5)),
                JobHandler.of(
                    "trickle",
                    job -> {
                      latencies.add(System.nanoTime() - Long.parseLong(job.payload()));
                      picked.incrementAndGet();
                    }))
            .instanceId("bench-fair")
            .batchSize(fairBatch)
            .build();
    d.start();
    int sent = 0;
    long end = System.nanoTime() + TRICKLE_MILLIS * 1_000_000;
    while (System.nanoTime() < end) {
      for (int g = 0; g < TRICKLING_GROUPS; g++) {
        String group = "small-" + g;
        try (Connection c = db.dataSource().getConnection()) {
          c.setAutoCommit(false);
          jobs.enqueue(c, Job.of("trickle", Long.toString(System.nanoTime())).group(group));
          c.commit();
        }
        sent++;
      }
      Thread.sleep(TRICKLE_EVERY_MILLIS);
    }
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
    while (picked.get() < sent && System.nanoTime() < deadline) {
      Thread.sleep(50);
    }
    d.close();
    assertEquals(sent, picked.get(), "every trickling job ran");
    double[] ms = latencies.stream().mapToDouble(n -> n / 1e6).sorted().toArray();
    return new double[] {
      ms[ms.length / 2],
      ms[(int) Math.min(ms.length - 1, Math.ceil(ms.length * 0.99) - 1)],
      ms[ms.length - 1]
    };
  }

  private static double median(List<Double> values) {
    double[] v = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
  }
}
