package dev.postbox.bench;

import dev.postbox.BatchTransport;
import dev.postbox.Database;
import dev.postbox.Delivery;
import dev.postbox.Dispatcher;
import dev.postbox.Envelope;
import dev.postbox.Listener;
import dev.postbox.Outbox;
import dev.postbox.Transport;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import javax.sql.DataSource;

/**
 * The performance harness: Postbox against a hand-written SQL floor ({@link Floor}) on PostgreSQL,
 * MariaDB, SQLite and H2, in one process, the contestants interleaved (the order rotates per
 * repetition), the schema re-created and re-seeded before every run, medians of the repetitions.
 * Prints a Markdown report; every run also checks that each message was delivered exactly once.
 *
 * <p>Workloads: W1 backlog drain, W2 produce and deliver (latency and idle CPU), W0 enqueue
 * overhead, W1 for durable jobs, a sustained drain on PostgreSQL that watches dead tuples, the
 * ordered drain, the bytes logged per message ({@link WriteVolume}), and on request W2 at a fixed
 * rate through a long-open transaction ({@link HeldHorizon}). Single-threaded driver; not part of
 * {@code mvn test} (see {@code PerformanceBenchmarkTest}).
 */
public final class PerformanceHarness {

  /** The workloads, in the order they run. */
  public enum Workload {
    W1,
    JOBS,
    W2,
    W0,
    SUSTAINED,
    ORDERED,
    VOLUME,
    /** Not in {@link Config#full()} or {@link Config#smoke()}: minutes per contestant. */
    HORIZON
  }

  /** How W2's producers make the dispatcher (Postbox or the floor) claim at once after commit. */
  public enum Wake {
    /** {@code dispatcher.wakeUp()} after each commit (the floor: a condition it waits on). */
    IN_PROCESS,
    /**
     * PostgreSQL only: the add notifies ({@code Outbox.builder().notifyDispatchers(true)}; the
     * floor: {@code pg_notify} in its INSERT statement) and the dispatcher LISTENs; no in-process
     * call.
     */
    NOTIFY,
    /** Producers signal nothing: delivery waits for the poll interval. */
    NONE
  }

  /**
   * What to run.
   *
   * @param databases the databases, in order
   * @param workloads the workloads to run
   * @param drainSizes W1 backlog sizes
   * @param jobSizes W1-for-jobs backlog sizes
   * @param repetitions runs of each contestant per size; the report gives medians
   * @param batchSize rows per claim, the same for the floor and Postbox
   * @param concurrency Postbox's deliveries at once (its default: 16)
   * @param pollInterval the wait after an empty claim, the same for the floor and Postbox
   * @param producers W2 and W0 producer threads
   * @param transactions W2 and W0 transactions per producer
   * @param idleWindow how long W2 measures CPU with the dispatcher idle
   * @param sustainedSize the sustained drain's backlog (PostgreSQL only)
   * @param sustainedWindow rows per window of the sustained drain
   * @param warmupSize rows each W1 contestant drains per database before measuring, again until the
   *     JIT compilers are done with it (see {@link Drain#warmUp}); 0 for none
   * @param h2Limit W1 sizes above this are skipped on H2 (in-memory H2 drains only a few thousand
   *     rows/s with either contestant and has no target)
   * @param floorThreads W1's floor grid: loops draining at once
   * @param floorBatches W1's floor grid: rows per claim
   * @param drainVariants W1's Postbox contestants
   * @param wakes W2's wake-up paths, each measured (NOTIFY on PostgreSQL only)
   * @param batchTransport Postbox's counting transport is a {@code BatchTransport}, so each claim
   *     is handed over whole on one thread; false: one {@code send} per message, each on its own
   *     thread
   * @param timeout the longest any one run may take before it counts as stuck
   * @param tune applied to every Postbox dispatcher builder after the harness's own settings
   */
  public record Config(
      List<Database> databases,
      Set<Workload> workloads,
      List<Integer> drainSizes,
      List<Integer> jobSizes,
      int repetitions,
      int batchSize,
      int concurrency,
      Duration pollInterval,
      int producers,
      int transactions,
      Duration idleWindow,
      int sustainedSize,
      int sustainedWindow,
      int warmupSize,
      int h2Limit,
      List<Integer> floorThreads,
      List<Integer> floorBatches,
      List<DrainVariant> drainVariants,
      List<Wake> wakes,
      boolean batchTransport,
      Duration timeout,
      UnaryOperator<Dispatcher.Builder> tune) {

    static final List<Database> ALL =
        List.of(Database.POSTGRESQL, Database.MYSQL, Database.SQLITE, Database.H2);

    /** The published run: the sizes, three repetitions. */
    public static Config full() {
      return new Config(
          ALL,
          EnumSet.complementOf(EnumSet.of(Workload.HORIZON)),
          List.of(50_000, 500_000),
          List.of(50_000),
          3,
          500,
          16,
          Duration.ofSeconds(1),
          4,
          5_000,
          Duration.ofSeconds(3),
          500_000,
          50_000,
          50_000,
          50_000,
          List.of(1, 2, 4),
          List.of(100, 500),
          DrainVariant.PUBLISHED,
          List.of(Wake.IN_PROCESS, Wake.NOTIFY),
          false,
          Duration.ofMinutes(30),
          UnaryOperator.identity());
    }

    /** Seconds per database: every workload on 200 rows, one repetition, correctness only. */
    public static Config smoke() {
      return new Config(
          ALL,
          EnumSet.complementOf(EnumSet.of(Workload.HORIZON)),
          List.of(200),
          List.of(200),
          1,
          50,
          16,
          Duration.ofMillis(200),
          4,
          50,
          Duration.ofMillis(200),
          400,
          100,
          0,
          50_000,
          List.of(1, 2),
          List.of(50),
          List.of(DrainVariant.values()),
          List.of(Wake.IN_PROCESS, Wake.NOTIFY),
          false,
          Duration.ofMinutes(2),
          UnaryOperator.identity());
    }

    /**
     * {@code base} with each option overridden by a system property: {@code bench.db}
     * (postgresql,mariadb,sqlite,h2), {@code bench.workloads}
     * (w1,jobs,w2,w0,sustained,ordered,volume,horizon; ordered reads {@code bench.orderedKeys},
     * horizon those {@link HeldHorizon} names), {@code bench.sizes}, {@code bench.jobSizes}, {@code
     * bench.reps}, {@code bench.batch}, {@code bench.concurrency}, {@code bench.pollMillis}, {@code
     * bench.producers}, {@code bench.transactions}, {@code bench.idleMillis}, {@code
     * bench.sustainedSize}, {@code bench.sustainedWindow}, {@code bench.warmup}, {@code
     * bench.h2Limit}, {@code bench.floorThreads}, {@code bench.floorBatches}, {@code
     * bench.variants} (defaults,large,send_batch,slow_send; keep_delivered when asked for), {@code
     * bench.wake} (in_process,notify,none), {@code bench.batchTransport}, {@code
     * bench.timeoutMinutes}.
     */
    public static Config fromSystemProperties(Config base) {
      return new Config(
          list("bench.db", base.databases, Config::database),
          EnumSet.copyOf(
              list(
                  "bench.workloads",
                  List.copyOf(base.workloads),
                  s -> Workload.valueOf(s.toUpperCase(Locale.ROOT)))),
          list("bench.sizes", base.drainSizes, Integer::parseInt),
          list("bench.jobSizes", base.jobSizes, Integer::parseInt),
          Integer.getInteger("bench.reps", base.repetitions),
          Integer.getInteger("bench.batch", base.batchSize),
          Integer.getInteger("bench.concurrency", base.concurrency),
          Duration.ofMillis(Long.getLong("bench.pollMillis", base.pollInterval.toMillis())),
          Integer.getInteger("bench.producers", base.producers),
          Integer.getInteger("bench.transactions", base.transactions),
          Duration.ofMillis(Long.getLong("bench.idleMillis", base.idleWindow.toMillis())),
          Integer.getInteger("bench.sustainedSize", base.sustainedSize),
          Integer.getInteger("bench.sustainedWindow", base.sustainedWindow),
          Integer.getInteger("bench.warmup", base.warmupSize),
          Integer.getInteger("bench.h2Limit", base.h2Limit),
          list("bench.floorThreads", base.floorThreads, Integer::parseInt),
          list("bench.floorBatches", base.floorBatches, Integer::parseInt),
          list(
              "bench.variants",
              base.drainVariants,
              v -> DrainVariant.valueOf(v.toUpperCase(Locale.ROOT))),
          list("bench.wake", base.wakes, w -> Wake.valueOf(w.toUpperCase(Locale.ROOT))),
          Boolean.parseBoolean(
              System.getProperty("bench.batchTransport", Boolean.toString(base.batchTransport))),
          Duration.ofMinutes(Long.getLong("bench.timeoutMinutes", base.timeout.toMinutes())),
          base.tune);
    }

    /** This config with {@code tune} applied to every Postbox dispatcher builder. */
    public Config withTune(UnaryOperator<Dispatcher.Builder> tune) {
      return new Config(
          databases,
          workloads,
          drainSizes,
          jobSizes,
          repetitions,
          batchSize,
          concurrency,
          pollInterval,
          producers,
          transactions,
          idleWindow,
          sustainedSize,
          sustainedWindow,
          warmupSize,
          h2Limit,
          floorThreads,
          floorBatches,
          drainVariants,
          wakes,
          batchTransport,
          timeout,
          tune);
    }

    private static Database database(String name) {
      return switch (name.toLowerCase(Locale.ROOT)) {
        case "postgresql", "postgres", "pg" -> Database.POSTGRESQL;
        case "mariadb", "mysql" -> Database.MYSQL;
        case "sqlite" -> Database.SQLITE;
        case "h2" -> Database.H2;
        default -> throw new IllegalArgumentException("unknown database " + name);
      };
    }

    private static <T> List<T> list(String property, List<T> fallback, Function<String, T> parse) {
      String value = System.getProperty(property);
      if (value == null || value.isBlank()) {
        return fallback;
      }
      return Arrays.stream(value.split(",")).map(String::strip).map(parse).toList();
    }
  }

  /** What a run printed, and every correctness problem it found (empty when all is well). */
  public record Report(String markdown, List<String> problems) {}

  final Config config;
  private final PrintStream progress;
  private final List<String> problems = Collections.synchronizedList(new ArrayList<>());

  private PerformanceHarness(Config config, PrintStream progress) {
    this.config = config;
    this.progress = progress;
  }

  /** A harness for a workload run on its own, outside {@link #run(Config, PrintStream)}. */
  static PerformanceHarness forWorkload(Config config, PrintStream progress) {
    return new PerformanceHarness(config, progress);
  }

  public static void main(String[] args) {
    Report report = run(Config.fromSystemProperties(Config.full()), System.out);
    System.out.println(report.markdown());
    if (!report.problems().isEmpty()) {
      System.exit(1);
    }
  }

  /**
   * Runs {@code config}, printing progress lines to {@code progress}; returns the Markdown report
   * (also printed to {@code progress} at the end).
   */
  public static Report run(Config config, PrintStream progress) {
    return new PerformanceHarness(config, progress).run();
  }

  private Report run() {
    Map<Database, BenchDb> dbs = new LinkedHashMap<>();
    try {
      for (Database d : config.databases()) {
        dbs.put(d, BenchDb.open(d));
      }
      List<BenchDb> all = List.copyOf(dbs.values());
      StringBuilder md = new StringBuilder();
      md.append(header(all));
      if (config.warmupSize() > 0) {
        for (BenchDb db : all) {
          log("warm-up on %s", db.name());
          new Drain(this, false).warmUp(db, config.warmupSize());
          if (config.workloads().contains(Workload.JOBS)) {
            new Drain(this, true).warmUp(db, config.warmupSize());
          }
          // producers' warm-up only where producers are measured: with W1 alone it cost a minute
          // and put W2's samples into a W1 profile
          if (config.workloads().contains(Workload.W2)
              || config.workloads().contains(Workload.W0)
              || config.workloads().contains(Workload.ORDERED)) {
            new ProduceDeliver(this).warmUp(db);
          }
        }
      }
      if (config.workloads().contains(Workload.W1)) {
        md.append(new Drain(this, false).run(all)).append('\n');
      }
      if (config.workloads().contains(Workload.JOBS)) {
        md.append(new Drain(this, true).run(all)).append('\n');
      }
      if (config.workloads().contains(Workload.W2)) {
        md.append(new ProduceDeliver(this).run(all)).append('\n');
      }
      if (config.workloads().contains(Workload.W0)) {
        md.append(new EnqueueOverhead(this).run(all)).append('\n');
      }
      if (config.workloads().contains(Workload.SUSTAINED) && dbs.containsKey(Database.POSTGRESQL)) {
        md.append(new SustainedDrain(this).run(dbs.get(Database.POSTGRESQL))).append('\n');
      }
      if (config.workloads().contains(Workload.ORDERED)) {
        md.append(new OrderedDrain(this).run(all)).append('\n');
      }
      if (config.workloads().contains(Workload.VOLUME)) {
        md.append(new WriteVolume(this).run(all)).append('\n');
      }
      if (config.workloads().contains(Workload.HORIZON)) {
        md.append(HeldHorizon.fromSystemProperties(this).run(all)).append('\n');
      }
      if (!problems.isEmpty()) {
        md.append("**Correctness problems:**\n\n");
        problems.forEach(p -> md.append("- ").append(p).append('\n'));
      }
      progress.println();
      progress.println(md);
      return new Report(md.toString(), List.copyOf(problems));
    } finally {
      dbs.values().forEach(BenchDb::close);
    }
  }

  private String header(List<BenchDb> dbs) {
    StringBuilder s = new StringBuilder();
    s.append("Run ")
        .append(LocalDate.now())
        .append(" on ")
        .append(Runtime.getRuntime().availableProcessors())
        .append(" cores, ")
        .append(memory())
        .append(" RAM, ")
        .append(System.getProperty("os.name"))
        .append(' ')
        .append(System.getProperty("os.version"))
        .append(", JDK ")
        .append(Runtime.version())
        .append(" (")
        .append(System.getProperty("java.vm.name"))
        .append(")\n\n");
    for (BenchDb db : dbs) {
      s.append("- ").append(db.name()).append(": ").append(db.version()).append('\n');
    }
    s.append(
        String.format(
            Locale.ROOT,
            "%nBatch %d rows per claim (W2's floor and Postbox; W1's floors: their grid),"
                + " Postbox concurrency %d, Postbox's"
                + " transport %s, poll interval %d ms, lease 2 min; HikariCP pool (32"
                + " connections; SQLite 8); medians of %d interleaved runs, schema re-created and"
                + " re-seeded before each run.%n%n",
            config.batchSize(),
            config.concurrency(),
            config.batchTransport()
                ? "a `BatchTransport` (each claim handed over whole)"
                : "with `send` only (one message per delivery thread)",
            config.pollInterval().toMillis(),
            config.repetitions()));
    return s.toString();
  }

  /**
   * A Postbox dispatcher builder as a user would configure it for this run: the run's batch size,
   * concurrency and poll interval, everything else default, counting finished rows into {@code
   * progress} through the listener, which also logs retried claims and outcome writes and lost
   * leases; then {@link Config#tune}.
   */
  Dispatcher.Builder dispatcher(DataSource ds, Progress progress) {
    Dispatcher.Builder b =
        Dispatcher.builder(ds)
            .batchSize(config.batchSize())
            .concurrency(config.concurrency())
            .pollInterval(config.pollInterval())
            .listener(
                new Listener() {
                  @Override
                  public void delivered(Delivery delivery, Duration elapsed) {
                    progress.add(1);
                  }

                  @Override
                  public void retried(String table, String operation, SQLException error) {
                    log("Postbox retried its %s on %s: %s", operation, table, error);
                  }

                  @Override
                  public void leaseLost(String table, int count) {
                    log("Postbox lost the lease of %d rows of %s", count, table);
                  }
                });
    Integer claims = Integer.getInteger("bench.claimsInFlight");
    if (claims != null) {
      b.claimsInFlight(claims);
    }
    String instanceId = System.getProperty("bench.instanceId");
    if (instanceId != null) {
      b.instanceId(instanceId);
    }
    Integer vacuumEvery = Integer.getInteger("bench.vacuumEvery");
    if (vacuumEvery != null) {
      b.vacuumEvery(vacuumEvery);
    }
    return config.tune().apply(b);
  }

  /**
   * Drains {@code n} rows of {@code outbox}'s table with a dispatcher as {@link #dispatcher} builds
   * it and the {@link #countingTransport}; returns the nanoseconds from its start until every row
   * is finished and it is closed.
   */
  long drain(DataSource ds, Outbox outbox, Deliveries d, Progress p, int n)
      throws InterruptedException {
    Dispatcher dispatcher = dispatcher(ds, p).outbox(outbox, countingTransport(d)).build();
    long start = System.nanoTime();
    dispatcher.start();
    try {
      p.await(config.timeout(), n + " rows");
    } finally {
      dispatcher.close();
    }
    return System.nanoTime() - start;
  }

  /**
   * Postbox's no-op transport for this run, counting each delivery into {@code deliveries} by the
   * index in its payload (Postbox generates the event ids of W2's messages): with {@code send}
   * only, or a {@link BatchTransport} if {@link Config#batchTransport}.
   */
  Transport countingTransport(Deliveries deliveries) {
    if (!config.batchTransport()) {
      return e -> deliveries.delivered(Deliveries.indexOfPayload(e.payload()));
    }
    return new BatchTransport() {
      @Override
      public void send(Envelope e) {
        deliveries.delivered(Deliveries.indexOfPayload(e.payload()));
      }

      @Override
      public void sendBatch(List<Envelope> batch) {
        for (Envelope e : batch) {
          deliveries.delivered(Deliveries.indexOfPayload(e.payload()));
        }
      }
    };
  }

  void log(String format, Object... args) {
    progress.printf(Locale.ROOT, format + "%n", args);
    progress.flush();
  }

  /**
   * Records as problems any message of {@code d} not delivered exactly once, and any row left in
   * {@code postbox_outbox} after a drain.
   */
  void checkDrained(String what, BenchDb db, Deliveries d) {
    String problems = d.problems();
    if (!problems.isEmpty()) {
      problem(what + ": " + problems);
    }
    long remaining = db.count("SELECT COUNT(*) FROM postbox_outbox");
    if (remaining != 0) {
      problem(what + ": " + remaining + " rows not finished");
    }
  }

  /** The problems recorded so far. */
  List<String> problems() {
    return List.copyOf(problems);
  }

  void problem(String what) {
    problems.add(what);
    log("PROBLEM: %s", what);
  }

  /**
   * CPU time of this process's threads, by thread: on Linux each thread's {@code
   * /proc/self/task/<tid>/schedstat} (nanosecond precision), elsewhere one entry with {@link
   * ProcessHandle.Info#totalCpuDuration()} (often clock ticks). Compare two with {@link #cpuSince}.
   */
  static Map<String, Long> cpuSnapshot() {
    Map<String, Long> cpu = new HashMap<>();
    Path tasks = Path.of("/proc/self/task");
    if (Files.isDirectory(tasks)) {
      try (var threads = Files.list(tasks)) {
        threads.forEach(
            t -> {
              try {
                String stat = Files.readString(t.resolve("schedstat"));
                cpu.put(
                    t.getFileName().toString(),
                    Long.parseLong(stat.substring(0, stat.indexOf(' '))));
              } catch (IOException | RuntimeException e) {
                // the thread ended while we looked
              }
            });
        return cpu;
      } catch (IOException e) {
        cpu.clear();
      }
    }
    cpu.put(
        "process",
        ProcessHandle.current().info().totalCpuDuration().map(Duration::toNanos).orElse(0L));
    return cpu;
  }

  /**
   * CPU nanoseconds spent since {@code before}: by threads alive at both times, plus all of those
   * started since. Threads that ended meanwhile (e.g. JIT compiler threads retiring) are left out
   * rather than counted negative.
   */
  static long cpuSince(Map<String, Long> before) {
    long total = 0;
    for (Map.Entry<String, Long> now : cpuSnapshot().entrySet()) {
      total += Math.max(0, now.getValue() - before.getOrDefault(now.getKey(), 0L));
    }
    return total;
  }

  /**
   * The whole machine's busy CPU time so far in µs (every process, every core: /proc/stat's first
   * line less idle and iowait), or -1 where there is no /proc/stat. Clock-tick resolution.
   */
  static long machineCpuMicros() {
    try {
      String line = Files.readAllLines(Path.of("/proc/stat")).get(0);
      String[] f = line.trim().split("\\s+");
      long busy = 0;
      for (int i = 1; i < Math.min(f.length, 9); i++) {
        if (i != 4 && i != 5) { // idle, iowait
          busy += Long.parseLong(f[i]);
        }
      }
      return busy * 1_000_000L / 100; // USER_HZ is 100 on Linux
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }

  /** Total memory from /proc/meminfo, or "?" where there is none. */
  private static String memory() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
        if (line.startsWith("MemTotal:")) {
          long kib = Long.parseLong(line.replaceAll("[^0-9]", ""));
          return Math.round(kib / 1024.0 / 1024.0) + " GiB";
        }
      }
    } catch (IOException | RuntimeException e) {
      // not Linux
    }
    return "?";
  }

  /**
   * The contestants' order in one repetition: rotated by one place per repetition, so each takes
   * each position in turn and none runs twice in a row across repetitions (a burst of outside load
   * then lands on different contestants); two contestants simply alternate.
   */
  static <T> List<T> interleaved(List<T> contestants, int repetition) {
    List<T> order = new ArrayList<>(contestants);
    if (order.size() > 2) {
      Collections.rotate(order, -(repetition % order.size()));
    }
    return order;
  }
}
