package dev.postbox.bench;

import dev.postbox.BatchTransport;
import dev.postbox.Database;
import dev.postbox.Dispatcher;
import dev.postbox.Envelope;
import dev.postbox.JobHandler;
import dev.postbox.Jobs;
import dev.postbox.Outbox;
import dev.postbox.Transport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * W1, backlog drain: {@code n} rows pre-inserted, a no-op consumer that only counts, rows per
 * second from the first claim until every row is deleted (outbox) or finished (jobs). Postbox runs
 * against a grid of hand-written floors ({@link Floor#drain}: 1, 2 or 4 loops, batches of 100 or
 * 500) and is compared with the best of them in the same run; on the outbox a floor on a minimal
 * table shows what the shipped schema costs. The job queue runs both of its retention modes (done
 * rows kept, the default, and deleted at once); the outbox's {@link DrainVariant#KEEP_DELIVERED}
 * keeps its rows too, and {@link KeptCleanup} times their cleanup after. {@link DrainReport} prints
 * the tables.
 */
final class Drain {
  private static final int WARM_UP_ROUNDS = 10;

  static final String POSTBOX = "Postbox";
  static final String MINIMAL = "minimal";

  private final PerformanceHarness h;
  private final boolean jobs;
  private final AtomicLong retries = new AtomicLong();

  /** Runs until the rows are all finished; returns the elapsed nanoseconds. */
  private interface Runner {
    long run(BenchDb db, int n, Deliveries d, Progress p) throws Exception;
  }

  /**
   * One drain of one table: {@code name} is a floor's "threads×batch", "minimal threads×batch", or
   * "Postbox" plus its label; {@code variant} is Postbox's, null for a floor.
   */
  private record Contestant(String name, Runner runner, Floor.Kind kind, DrainVariant variant) {
    Contestant(String name, Runner runner, Floor.Kind kind) {
      this(name, runner, kind, null);
    }

    /** True if the rows end done, kept, rather than deleted. */
    boolean keepsRows() {
      return kind == Floor.Kind.JOBS_DONE || variant == DrainVariant.KEEP_DELIVERED;
    }
  }

  Drain(PerformanceHarness h, boolean jobs) {
    this.h = h;
    this.jobs = jobs;
  }

  /** The kinds of drain this workload measures: the outbox, or jobs kept done and deleted. */
  List<Floor.Kind> kinds() {
    return jobs
        ? List.of(Floor.Kind.JOBS_DONE, Floor.Kind.JOBS_DELETE)
        : List.of(Floor.Kind.OUTBOX);
  }

  /** The floor grid's names, "threads×batch". */
  List<String> floors() {
    List<String> names = new ArrayList<>();
    for (int threads : h.config.floorThreads()) {
      for (int batch : h.config.floorBatches()) {
        names.add(floorName(threads, batch));
      }
    }
    return names;
  }

  static String floorName(int threads, int batch) {
    return threads + "×" + batch;
  }

  private List<Contestant> contestants(Floor.Kind kind) {
    List<Contestant> list = new ArrayList<>();
    for (int threads : h.config.floorThreads()) {
      for (int batch : h.config.floorBatches()) {
        list.add(new Contestant(floorName(threads, batch), floor(kind, threads, batch), kind));
      }
    }
    if (kind == Floor.Kind.OUTBOX) {
      int batch = h.config.floorBatches().stream().mapToInt(Integer::intValue).max().orElse(100);
      for (int threads : h.config.floorThreads()) {
        list.add(
            new Contestant(
                MINIMAL + " " + floorName(threads, batch),
                floor(Floor.Kind.MINIMAL, threads, batch),
                Floor.Kind.MINIMAL));
      }
    }
    for (DrainVariant v : h.config.drainVariants()) {
      if (!v.outboxOnly() || kind == Floor.Kind.OUTBOX) {
        list.add(new Contestant(POSTBOX + " " + v.label(), postbox(kind, v), kind, v));
      }
    }
    return list;
  }

  /**
   * Drains {@code n} rows with each contestant, again while the JIT compilers spent more than 2% of
   * the drain's time (up to {@value #WARM_UP_ROUNDS} rounds), recording nothing but problems. A
   * dispatcher runs for days: its figure is the compiled code's, as the floor's is. Postbox runs
   * more code per claim than the floor; after one 5,000-row drain its next two 50,000-row drains
   * still spent about 600 ms each compiling (12 µs per row of client CPU, on cores the database
   * shares), the floor's about 100 ms.
   */
  void warmUp(BenchDb db, int n) {
    for (Floor.Kind kind : kinds()) {
      for (Contestant c : contestants(kind)) {
        for (int round = 1; round <= WARM_UP_ROUNDS; round++) {
          double[] r = measure(db, n, c, "warm-up " + round);
          if (!(r[2] > 0.02 * n / r[0] * 1000)) {
            break;
          }
        }
      }
    }
  }

  String run(List<BenchDb> dbs) {
    List<Integer> sizes = jobs ? h.config.jobSizes() : h.config.drainSizes();
    Map<String, List<Double>> results = new LinkedHashMap<>();
    for (BenchDb db : dbs) {
      for (int n : sizes(db, sizes)) {
        for (Floor.Kind kind : kinds()) {
          for (int rep = 0; rep < h.config.repetitions(); rep++) {
            for (Contestant c : PerformanceHarness.interleaved(contestants(kind), rep)) {
              double[] r = measure(db, n, c, "rep " + (rep + 1));
              String key = DrainReport.key(db, n, kind, c.name());
              results.computeIfAbsent(key, k -> new ArrayList<>()).add(r[0]);
              results.computeIfAbsent(key + "/cpu", k -> new ArrayList<>()).add(r[1]);
              results.computeIfAbsent(key + "/jit", k -> new ArrayList<>()).add(r[3]);
              if (c.variant() == DrainVariant.KEEP_DELIVERED) {
                results.computeIfAbsent(key + "/cleanup", k -> new ArrayList<>()).add(r[4]);
                results.computeIfAbsent(key + "/cleanupCpu", k -> new ArrayList<>()).add(r[5]);
              }
            }
            if (h.config.drainVariants().contains(DrainVariant.SLOW_SEND)) {
              double ceiling = sendCeiling(db, n, rep);
              results
                  .computeIfAbsent(
                      DrainReport.key(db, n, kind, SlowSends.CEILING), k -> new ArrayList<>())
                  .add(ceiling);
            }
          }
        }
      }
    }
    return new DrainReport(h.config, this, results).render(dbs, sizes);
  }

  /**
   * One drain; returns rows/s, this process's CPU microseconds per row, JIT milliseconds, the JIT
   * compiler threads' CPU microseconds per row (NaN where unknown), and for {@link
   * DrainVariant#KEEP_DELIVERED} the cleanup's rows/s and CPU microseconds per row after (else
   * NaN).
   */
  private double[] measure(BenchDb db, int n, Contestant c, String label) {
    String what =
        (jobs ? "jobs W1 " : "W1 ")
            + db.name()
            + " "
            + n
            + " "
            + (jobs ? c.kind() + " " : "")
            + c.name()
            + " "
            + label;
    try {
      db.reset();
      switch (c.kind()) {
        case OUTBOX -> db.seedOutbox(n);
        case MINIMAL -> db.seedMinimal(n);
        case JOBS_DONE, JOBS_DELETE -> db.seedJobs(n);
      }
      db.settle();
      Deliveries d = new Deliveries(n);
      Progress p = new Progress(n);
      long cpu = processCpuNanos();
      long compilerCpu = CompilerCpu.nanos();
      long jit = jitMillis();
      long machine = PerformanceHarness.machineCpuMicros();
      long nanos = c.runner().run(db, n, d, p);
      double cpuPerRow = (processCpuNanos() - cpu) / 1e3 / n;
      long compilerCpuAfter = CompilerCpu.nanos();
      double compilerPerRow =
          compilerCpu < 0 || compilerCpuAfter < 0
              ? Double.NaN
              : (compilerCpuAfter - compilerCpu) / 1e3 / n;
      long jitDuring = jitMillis() - jit;
      // every process on the machine, the database included where it runs here
      double machinePerRow = (PerformanceHarness.machineCpuMicros() - machine) / (double) n;
      String problems = d.problems();
      if (!problems.isEmpty()) {
        h.problem(what + ": " + problems);
      }
      String left =
          c.keepsRows()
              ? "SELECT COUNT(*) FROM " + c.kind().table + " WHERE state <> 1"
              : "SELECT COUNT(*) FROM " + c.kind().table;
      long remaining = db.count(left);
      if (remaining != 0) {
        h.problem(what + ": " + remaining + " rows not finished");
      }
      double rate = n / (nanos / 1e9);
      h.log(
          "%s: %s rows/s (%d ms), client CPU %s µs/row (JIT compiler threads %s), machine CPU %s"
              + " µs/row, JIT %d ms",
          what,
          Stats.rate(rate),
          nanos / 1_000_000,
          Stats.decimal(cpuPerRow, 1),
          Stats.decimal(compilerPerRow, 1),
          Stats.decimal(machinePerRow, 1),
          jitDuring);
      double[] cleanup = {Double.NaN, Double.NaN};
      if (c.variant() == DrainVariant.KEEP_DELIVERED) {
        cleanup = KeptCleanup.time(db, n, h.config.timeout());
        h.log(
            "%s cleanup: %s rows/s, client CPU %s µs/row",
            what, Stats.rate(cleanup[0]), Stats.decimal(cleanup[1], 1));
      }
      return new double[] {rate, cpuPerRow, jitDuring, compilerPerRow, cleanup[0], cleanup[1]};
    } catch (Exception e) {
      h.problem(what + ": failed: " + e);
      double nan = Double.NaN;
      return new double[] {nan, nan, nan, nan, nan, nan};
    }
  }

  /** {@link SlowSends#ceiling} for {@code n} sends, beside the drains of the same repetition. */
  private double sendCeiling(BenchDb db, int n, int rep) {
    try {
      long cpu = processCpuNanos();
      SlowSends.reset();
      double rate = SlowSends.ceiling(n, DrainVariant.SLOW_SEND_CONCURRENCY);
      h.log(
          "W1 %s %d %s rep %d: %s sends/s, client CPU %s µs/send, %s ms per send",
          db.name(),
          n,
          SlowSends.CEILING,
          rep + 1,
          Stats.rate(rate),
          Stats.decimal((processCpuNanos() - cpu) / 1e3 / n, 1),
          Stats.millis(SlowSends.meanNanos()));
      return rate;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      h.problem(SlowSends.CEILING + ": interrupted");
      return Double.NaN;
    }
  }

  /** The JIT compilers' time so far (in the client CPU figure, until the code is compiled). */
  static long jitMillis() {
    return java.lang.management.ManagementFactory.getCompilationMXBean().getTotalCompilationTime();
  }

  /**
   * This process's CPU time in ns, every thread's including those that ended (the floor's loops end
   * before the drain is measured), from the JVM's operating-system bean.
   */
  static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean)
            java.lang.management.ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  private Runner floor(Floor.Kind kind, int threads, int batch) {
    return (db, n, d, p) -> {
      long start = System.nanoTime();
      Floor.drain(db, kind, threads, batch, row -> d.delivered(row.index()), p, retries);
      return System.nanoTime() - start;
    };
  }

  private Runner postbox(Floor.Kind kind, DrainVariant variant) {
    return (db, n, d, p) -> {
      Dispatcher.Builder b = variant.configure(h.dispatcher(db.dataSource(), p));
      if (kind == Floor.Kind.OUTBOX) {
        // the floor keeps no order: neither does this (the ordered drain is its own workload)
        Outbox outbox = variant.configure(Outbox.builder().orderedByKey(false)).build();
        b.outbox(outbox, transport(variant, d));
      } else {
        Duration retention = kind == Floor.Kind.JOBS_DONE ? Duration.ofDays(1) : Duration.ZERO;
        b.jobs(Jobs.builder().retention(retention).build(), handler(variant, d));
      }
      if (variant != DrainVariant.SLOW_SEND) {
        return timed(b.build(), p, n);
      }
      SlowSends.reset();
      long nanos = timed(b.build(), p, n);
      logSlowSends(db, n, nanos);
      return nanos;
    };
  }

  /**
   * How long the 1 ms sends really took, and how busy that kept the slots: rows/s × time per send ÷
   * concurrency (1.0: every slot sending all the time).
   */
  private void logSlowSends(BenchDb db, int n, long nanos) {
    double perSend = SlowSends.meanNanos();
    double rate = n / (nanos / 1e9);
    h.log(
        "W1 %s %d 1 ms sends: %s ms per send, slots busy %s",
        db.name(),
        n,
        Stats.millis(perSend),
        Stats.decimal(rate * perSend / 1e9 / DrainVariant.SLOW_SEND_CONCURRENCY, 2));
  }

  private Transport transport(DrainVariant variant, Deliveries d) {
    return switch (variant) {
      case SEND_BATCH ->
          new BatchTransport() {
            @Override
            public void send(Envelope e) {
              d.delivered(Deliveries.indexOfPayload(e.payload()));
            }

            @Override
            public void sendBatch(List<Envelope> batch) {
              for (Envelope e : batch) {
                d.delivered(Deliveries.indexOfPayload(e.payload()));
              }
            }
          };
      case SLOW_SEND ->
          e -> {
            SlowSends.send();
            d.delivered(Deliveries.indexOfPayload(e.payload()));
          };
      default -> h.countingTransport(d);
    };
  }

  private static JobHandler handler(DrainVariant variant, Deliveries d) {
    return new JobHandler() {
      @Override
      public String name() {
        return "bench-noop";
      }

      @Override
      public void execute(String payload) {
        if (variant == DrainVariant.SLOW_SEND) {
          SlowSends.send();
        }
        d.delivered(Deliveries.indexOfPayload(payload));
      }
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

  List<Integer> sizes(BenchDb db, List<Integer> sizes) {
    return db.database() != Database.H2
        ? sizes
        : sizes.stream().filter(n -> n <= h.config.h2Limit()).toList();
  }
}
