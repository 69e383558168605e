package dev.postbox.bench;

import dev.postbox.BackgroundQueue;
import dev.postbox.BackgroundTask;
import dev.postbox.bench.lockfree.LockFreeBackgroundQueue;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

/**
 * Compares {@link BackgroundQueue} with the lock-free design it replaced ({@link
 * LockFreeBackgroundQueue}, kept in test scope as the baseline), in one process and interleaved,
 * and prints a Markdown table: tasks/s and this process's CPU per task for tasks of 0 µs, 50 µs and
 * 1 ms, sleeping and busy, then heap and throughput under a flood.
 *
 * <p>Single-threaded driver; not part of {@code mvn test}. Sizes come from system properties
 * ({@code bench.full=true} for the full run, or {@code bench.<field>} per field of {@link Config})
 * or from {@code field=value} arguments.
 */
public final class BackgroundQueueBenchmark {

  /**
   * What to run; {@link #full()} is the published run, {@link #smoke()} a seconds-long check.
   * {@code scale} multiplies every row's task count; {@code manyWorkers} is the worker count of the
   * extra rows of sleeping tasks (the tasks of every other row run on the default 4).
   */
  public record Config(
      double scale,
      int manyWorkers,
      int capacity,
      int rounds,
      int floodProducers,
      int floodWorkers,
      Duration flood) {

    public static Config full() {
      return new Config(1.0, 100, 1000, 7, 10, 4, Duration.ofSeconds(10));
    }

    public static Config smoke() {
      return new Config(0.005, 20, 100, 1, 2, 2, Duration.ofMillis(200));
    }

    /** Full or smoke by {@code bench.full}, then each {@code bench.<field>} overrides. */
    public static Config fromSystemProperties() {
      Config c = Boolean.getBoolean("bench.full") ? full() : smoke();
      return new Config(
          Double.parseDouble(System.getProperty("bench.scale", Double.toString(c.scale))),
          Integer.getInteger("bench.manyWorkers", c.manyWorkers),
          Integer.getInteger("bench.capacity", c.capacity),
          Integer.getInteger("bench.rounds", c.rounds),
          Integer.getInteger("bench.floodProducers", c.floodProducers),
          Integer.getInteger("bench.floodWorkers", c.floodWorkers),
          Duration.parse(System.getProperty("bench.flood", c.flood.toString())));
    }
  }

  /** One row: what each task does, for how long, on how many workers, and how many tasks. */
  private record Row(long micros, boolean sleeps, int workers, int tasks) {
    String label() {
      String length = micros % 1000 == 0 ? micros / 1000 + " ms" : micros + " µs";
      return micros == 0 ? "0 µs (empty)" : length + (sleeps ? " sleeping" : " busy");
    }

    BackgroundTask task() {
      long nanos = micros * 1000;
      if (nanos == 0) {
        return () -> {};
      }
      if (sleeps) {
        Duration sleep = Duration.ofNanos(nanos);
        return () -> Thread.sleep(sleep);
      }
      return () -> {
        long end = System.nanoTime() + nanos;
        while (System.nanoTime() < end) {
          Thread.onSpinWait();
        }
      };
    }
  }

  private static List<Row> rows(Config c) {
    int many = c.manyWorkers;
    return List.of(
        row(0, false, 4, 1_000_000, c),
        row(50, true, 4, 40_000, c),
        row(50, false, 4, 40_000, c),
        row(1000, true, 4, 4_000, c),
        row(1000, false, 4, 2_000, c),
        row(50, true, many, 200_000, c),
        row(1000, true, many, 100_000, c));
  }

  private static Row row(long micros, boolean sleeps, int workers, int tasks, Config c) {
    return new Row(micros, sleeps, workers, Math.max(workers, (int) (tasks * c.scale)));
  }

  /** The two contenders behind one shape: submit blocks while full; close waits for the rest. */
  private enum Kind {
    LOCK_FREE,
    TODAY;

    AutoCloseableQueue create(int workers, int capacity) {
      Duration drain = Duration.ofMinutes(10);
      if (this == LOCK_FREE) {
        LockFreeBackgroundQueue q =
            new LockFreeBackgroundQueue("bench-old", workers, capacity, drain);
        return new AutoCloseableQueue(q::enqueue, q::close);
      }
      BackgroundQueue q =
          BackgroundQueue.builder()
              .name("bench")
              .workers(workers)
              .capacity(capacity)
              .drainTimeout(drain)
              .closeOnShutdown(false)
              .build();
      return new AutoCloseableQueue(q::enqueue, q::close);
    }
  }

  private interface Submit {
    void submit(BackgroundTask task);
  }

  private record AutoCloseableQueue(Submit submit, Runnable closer) implements AutoCloseable {
    @Override
    public void close() {
      closer.run();
    }
  }

  public static void main(String[] args) throws Exception {
    for (String arg : args) {
      String[] kv = arg.split("=", 2);
      System.setProperty("bench." + kv[0], kv[1]);
    }
    System.out.println(run(Config.fromSystemProperties()));
  }

  /** Runs every scenario and returns the Markdown report. */
  public static String run(Config c) throws Exception {
    StringBuilder out = new StringBuilder();
    out.append(
        String.format(
            Locale.ROOT,
            "JDK %s, %d cores, max heap %d MiB; %s%n%n",
            Runtime.version(),
            Runtime.getRuntime().availableProcessors(),
            Runtime.getRuntime().maxMemory() >> 20,
            c));
    MarkdownTable table =
        new MarkdownTable(
            "task",
            "workers",
            "tasks",
            "lock-free tasks/s",
            "today tasks/s",
            "today / lock-free",
            "CPU µs/task, lock-free",
            "CPU µs/task, today");
    for (Row row : rows(c)) {
      table.row(throughput(row, c));
    }
    out.append(table);
    out.append(
        String.format(
            Locale.ROOT,
            "%nCapacity %d. Medians of %d interleaved rounds after one warm-up round each;"
                + " tasks/s from the first enqueue until the last task has finished; CPU: this"
                + " process's CPU time (every thread's) over the same span, per task.%n%n",
            c.capacity,
            c.rounds));

    MarkdownTable flood =
        new MarkdownTable(
            String.format(
                Locale.ROOT,
                "flood: %d producers, %d workers, capacity %d, %s",
                c.floodProducers,
                c.floodWorkers,
                c.capacity,
                c.flood),
            "lock-free",
            "today");
    Flood old = flood(Kind.LOCK_FREE, c);
    Flood today = flood(Kind.TODAY, c);
    flood.row("tasks completed", count(old.completed), count(today.completed));
    flood.row("peak heap used, MiB", mib(old.peakHeap), mib(today.peakHeap));
    flood.row("heap after a full GC at the end of the flood, MiB", mib(old.live), mib(today.live));
    out.append(flood);
    return out.toString();
  }

  private static String count(long n) {
    return String.format(Locale.ROOT, "%,d", n);
  }

  private static String mib(long bytes) {
    return String.format(Locale.ROOT, "%,.1f", bytes / 1048576.0);
  }

  private static String[] throughput(Row row, Config c) throws Exception {
    Kind[] kinds = Kind.values();
    double[][] rates = new double[kinds.length][c.rounds];
    double[][] cpu = new double[kinds.length][c.rounds];
    for (Kind kind : kinds) {
      measure(kind, row, Math.max(row.workers, row.tasks / 5), c.capacity); // warm-up
    }
    for (int round = 0; round < c.rounds; round++) {
      // Alternate who goes first so drift in the machine's load hits both alike.
      for (int i = 0; i < kinds.length; i++) {
        int k = (round + i) % kinds.length;
        double[] m = measure(kinds[k], row, row.tasks, c.capacity);
        rates[k][round] = m[0];
        cpu[k][round] = m[1];
      }
    }
    double old = median(rates[Kind.LOCK_FREE.ordinal()]);
    double today = median(rates[Kind.TODAY.ordinal()]);
    return new String[] {
      row.label(),
      Integer.toString(row.workers),
      count(row.tasks),
      String.format(Locale.ROOT, "%,.0f", old),
      String.format(Locale.ROOT, "%,.0f", today),
      String.format(Locale.ROOT, "%.2f×", today / old),
      String.format(Locale.ROOT, "%.1f", median(cpu[Kind.LOCK_FREE.ordinal()])),
      String.format(Locale.ROOT, "%.1f", median(cpu[Kind.TODAY.ordinal()]))
    };
  }

  /**
   * Tasks per second from the first submit until the last task has finished, and this process's CPU
   * microseconds per task over the same span.
   */
  private static double[] measure(Kind kind, Row row, int tasks, int capacity) throws Exception {
    BackgroundTask body = row.task();
    CountDownLatch done = new CountDownLatch(tasks);
    BackgroundTask task =
        () -> {
          body.run();
          done.countDown();
        };
    try (AutoCloseableQueue queue = kind.create(row.workers, capacity)) {
      long cpu = Drain.processCpuNanos();
      long start = System.nanoTime();
      for (int i = 0; i < tasks; i++) {
        queue.submit.submit(task);
      }
      done.await();
      long elapsed = System.nanoTime() - start;
      return new double[] {tasks / (elapsed / 1e9), (Drain.processCpuNanos() - cpu) / 1e3 / tasks};
    }
  }

  private static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    int mid = sorted.length / 2;
    return sorted.length % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  }

  private record Flood(long completed, long peakHeap, long live) {}

  private static Flood flood(Kind kind, Config c) throws Exception {
    HeapPools heap = new HeapPools();
    System.gc();
    heap.resetPeaks();
    LongAdder completed = new LongAdder();
    AtomicBoolean stop = new AtomicBoolean();
    long live;
    try (AutoCloseableQueue queue = kind.create(c.floodWorkers, c.capacity)) {
      List<Thread> producers = new ArrayList<>();
      for (int i = 0; i < c.floodProducers; i++) {
        producers.add(
            Thread.ofVirtual()
                .start(
                    () -> {
                      while (!stop.get()) {
                        queue.submit.submit(completed::increment);
                      }
                    }));
      }
      Thread.sleep(c.flood); // the flood's length, not a stand-in for synchronisation
      System.gc(); // while the queue is full and producers are blocked: the live set
      live = heap.used();
      stop.set(true);
      for (Thread producer : producers) {
        producer.join();
      }
    }
    return new Flood(completed.sum(), heap.peak(), live);
  }

  /**
   * The heap's memory pools, through reflection: the tests are compiled into module dev.postbox,
   * which does not read java.management (and must not, for one benchmark).
   */
  private static final class HeapPools {
    private final List<Object> pools = new ArrayList<>();
    private final Method resetPeakUsage;
    private final Method getPeakUsage;
    private final Method getUsage;
    private final Method getUsed;

    HeapPools() throws ReflectiveOperationException {
      Class<?> factory = Class.forName("java.lang.management.ManagementFactory");
      Class<?> pool = Class.forName("java.lang.management.MemoryPoolMXBean");
      resetPeakUsage = pool.getMethod("resetPeakUsage");
      getPeakUsage = pool.getMethod("getPeakUsage");
      getUsage = pool.getMethod("getUsage");
      getUsed = Class.forName("java.lang.management.MemoryUsage").getMethod("getUsed");
      Method getType = pool.getMethod("getType");
      for (Object bean : (List<?>) factory.getMethod("getMemoryPoolMXBeans").invoke(null)) {
        if (((Enum<?>) getType.invoke(bean)).name().equals("HEAP")) {
          pools.add(bean);
        }
      }
    }

    void resetPeaks() throws ReflectiveOperationException {
      for (Object pool : pools) {
        resetPeakUsage.invoke(pool);
      }
    }

    /** Sum of the pools' peaks (an upper bound: pools peak at different times). */
    long peak() throws ReflectiveOperationException {
      long sum = 0;
      for (Object pool : pools) {
        sum += (long) getUsed.invoke(getPeakUsage.invoke(pool));
      }
      return sum;
    }

    long used() throws ReflectiveOperationException {
      long sum = 0;
      for (Object pool : pools) {
        sum += (long) getUsed.invoke(getUsage.invoke(pool));
      }
      return sum;
    }
  }

  private BackgroundQueueBenchmark() {}
}
