package dev.postbox.bench;

import dev.postbox.BackgroundQueue;
import dev.postbox.BackgroundTask;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Compares {@link BackgroundQueue} with a hand-written virtual-thread executor plus semaphores, in
 * one process and interleaved, and prints a Markdown table.
 *
 * <p>Single-threaded driver; not part of {@code mvn test}. Sizes come from system properties
 * ({@code bench.full=true} for the full run, or {@code bench.<field>} per field of {@link Config})
 * or from {@code field=value} arguments.
 */
public final class BackgroundQueueBenchmark {

  /** What to run; {@link #full()} is the published run, {@link #smoke()} a seconds-long check. */
  public record Config(
      int trivialTasks,
      int trivialWorkers,
      int sleepTasks,
      int sleepWorkers,
      int capacity,
      int rounds,
      int floodProducers,
      int floodWorkers,
      Duration flood) {

    public static Config full() {
      return new Config(1_000_000, 4, 100_000, 100, 1000, 5, 10, 4, Duration.ofSeconds(10));
    }

    public static Config smoke() {
      return new Config(2_000, 4, 200, 20, 100, 1, 2, 2, Duration.ofMillis(200));
    }

    /** Full or smoke by {@code bench.full}, then each {@code bench.<field>} overrides. */
    public static Config fromSystemProperties() {
      Config c = Boolean.getBoolean("bench.full") ? full() : smoke();
      return new Config(
          Integer.getInteger("bench.trivialTasks", c.trivialTasks),
          Integer.getInteger("bench.trivialWorkers", c.trivialWorkers),
          Integer.getInteger("bench.sleepTasks", c.sleepTasks),
          Integer.getInteger("bench.sleepWorkers", c.sleepWorkers),
          Integer.getInteger("bench.capacity", c.capacity),
          Integer.getInteger("bench.rounds", c.rounds),
          Integer.getInteger("bench.floodProducers", c.floodProducers),
          Integer.getInteger("bench.floodWorkers", c.floodWorkers),
          Duration.parse(System.getProperty("bench.flood", c.flood.toString())));
    }
  }

  /** The two contenders behind one shape: submit blocks while full; close waits for the rest. */
  private interface Contender extends AutoCloseable {
    void submit(BackgroundTask task) throws InterruptedException;

    @Override
    void close();
  }

  private static Contender postbox(int workers, int capacity) {
    BackgroundQueue queue =
        BackgroundQueue.builder()
            .name("bench")
            .workers(workers)
            .capacity(capacity)
            .drainTimeout(Duration.ofMinutes(10))
            .build();
    return new Contender() {
      @Override
      public void submit(BackgroundTask task) {
        queue.enqueue(task);
      }

      @Override
      public void close() {
        queue.close();
      }
    };
  }

  /**
   * The baseline a careful user would write by hand: a thread per task from {@code
   * newVirtualThreadPerTaskExecutor}, {@code capacity + workers} slots acquired by the producer
   * (blocks when full) and {@code workers} permits acquired by the task (at most that many run).
   */
  private static Contender baseline(int workers, int capacity) {
    ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
    Semaphore slots = new Semaphore(capacity + workers);
    Semaphore running = new Semaphore(workers);
    return new Contender() {
      @Override
      public void submit(BackgroundTask task) throws InterruptedException {
        slots.acquire();
        executor.execute(
            () -> {
              running.acquireUninterruptibly();
              try {
                task.run();
              } catch (Exception e) {
                throw new IllegalStateException(e);
              } finally {
                running.release();
                slots.release();
              }
            });
      }

      @Override
      public void close() {
        executor.close();
      }
    };
  }

  /**
   * The pattern the design rules ask for, by hand: the producer takes one of {@code workers}
   * permits, then starts the thread; there is no queue, so the producer waits for every task slot.
   */
  private static Contender permitFirst(int workers) {
    ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
    Semaphore running = new Semaphore(workers);
    return new Contender() {
      @Override
      public void submit(BackgroundTask task) throws InterruptedException {
        running.acquire();
        executor.execute(
            () -> {
              try {
                task.run();
              } catch (Exception e) {
                throw new IllegalStateException(e);
              } finally {
                running.release();
              }
            });
      }

      @Override
      public void close() {
        executor.close();
      }
    };
  }

  private enum Kind {
    POSTBOX,
    BASELINE,
    PERMIT_FIRST;

    Contender create(int workers, int capacity) {
      return switch (this) {
        case POSTBOX -> postbox(workers, capacity);
        case BASELINE -> baseline(workers, capacity);
        case PERMIT_FIRST -> permitFirst(workers);
      };
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
    out.append(
        "| scenario | Postbox tasks/s | baseline tasks/s | Postbox / baseline"
            + " | permit-first tasks/s |\n");
    out.append("|---|---:|---:|---:|---:|\n");
    throughput(
        out,
        String.format(
            Locale.ROOT,
            "%,d trivial tasks, %d workers, capacity %d",
            c.trivialTasks,
            c.trivialWorkers,
            c.capacity),
        () -> () -> {},
        c.trivialTasks,
        c.trivialWorkers,
        c);
    throughput(
        out,
        String.format(
            Locale.ROOT,
            "%,d tasks sleeping 1 ms, %d workers, capacity %d",
            c.sleepTasks,
            c.sleepWorkers,
            c.capacity),
        () -> () -> Thread.sleep(1),
        c.sleepTasks,
        c.sleepWorkers,
        c);
    out.append(
        String.format(
            Locale.ROOT,
            "%nMedian of %d interleaved rounds after one warm-up round each. Baseline: "
                + "newVirtualThreadPerTaskExecutor, the producer takes one of capacity + workers "
                + "slots, the task one of workers permits (threads start before their permit). "
                + "Permit-first: the producer takes one of workers permits, then starts the thread "
                + "(no queue).%n%n",
            c.rounds));

    out.append(
        String.format(
            Locale.ROOT,
            "| flood: %d producers, %d workers, capacity %d, %s | Postbox | baseline"
                + " | permit-first |%n",
            c.floodProducers,
            c.floodWorkers,
            c.capacity,
            c.flood));
    out.append("|---|---:|---:|---:|\n");
    List<Flood> floods = new ArrayList<>();
    for (Kind kind : Kind.values()) {
      floods.add(flood(kind, c));
    }
    out.append(row("tasks completed", floods, f -> String.format(Locale.ROOT, "%,d", f.completed)));
    out.append(row("peak heap used, MiB", floods, f -> mib(f.peakHeap)));
    out.append(row("peak old gen used, MiB", floods, f -> mib(f.peakOld)));
    out.append(row("heap after a full GC at the end of the flood, MiB", floods, f -> mib(f.live)));
    return out.toString();
  }

  private static String row(String label, List<Flood> floods, Function<Flood, String> cell) {
    StringBuilder row = new StringBuilder("| ").append(label).append(" |");
    for (Flood flood : floods) {
      row.append(' ').append(cell.apply(flood)).append(" |");
    }
    return row.append('\n').toString();
  }

  private static String mib(long bytes) {
    return String.format(Locale.ROOT, "%,.1f", bytes / 1048576.0);
  }

  private static void throughput(
      StringBuilder out,
      String label,
      Supplier<BackgroundTask> work,
      int tasks,
      int workers,
      Config c)
      throws Exception {
    Kind[] kinds = Kind.values();
    double[][] rates = new double[kinds.length][c.rounds];
    for (Kind kind : kinds) {
      measure(kind, work, Math.max(1, tasks / 5), workers, c.capacity); // warm-up
    }
    for (int round = 0; round < c.rounds; round++) {
      // Rotate who goes first so drift in the machine's load hits all alike.
      for (int i = 0; i < kinds.length; i++) {
        int k = (round + i) % kinds.length;
        rates[k][round] = measure(kinds[k], work, tasks, workers, c.capacity);
      }
    }
    double postbox = median(rates[Kind.POSTBOX.ordinal()]);
    double baseline = median(rates[Kind.BASELINE.ordinal()]);
    double permitFirst = median(rates[Kind.PERMIT_FIRST.ordinal()]);
    out.append(
        String.format(
            Locale.ROOT,
            "| %s | %,.0f | %,.0f | %.2f× | %,.0f |%n",
            label,
            postbox,
            baseline,
            postbox / baseline,
            permitFirst));
  }

  /** Tasks per second from the first submit until the last task has finished. */
  private static double measure(
      Kind kind, Supplier<BackgroundTask> work, int tasks, int workers, int capacity)
      throws Exception {
    BackgroundTask body = work.get();
    CountDownLatch done = new CountDownLatch(tasks);
    BackgroundTask task =
        () -> {
          body.run();
          done.countDown();
        };
    try (Contender contender = kind.create(workers, capacity)) {
      long start = System.nanoTime();
      for (int i = 0; i < tasks; i++) {
        contender.submit(task);
      }
      done.await();
      return tasks / ((System.nanoTime() - start) / 1e9);
    }
  }

  private static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    int mid = sorted.length / 2;
    return sorted.length % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  }

  private record Flood(long completed, long peakHeap, long peakOld, long live) {}

  private static Flood flood(Kind kind, Config c) throws Exception {
    HeapPools heap = new HeapPools();
    System.gc();
    heap.resetPeaks();
    LongAdder completed = new LongAdder();
    AtomicBoolean stop = new AtomicBoolean();
    long live;
    try (Contender contender = kind.create(c.floodWorkers, c.capacity)) {
      List<Thread> producers = new ArrayList<>();
      for (int i = 0; i < c.floodProducers; i++) {
        producers.add(
            Thread.ofVirtual()
                .start(
                    () -> {
                      try {
                        while (!stop.get()) {
                          contender.submit(completed::increment);
                        }
                      } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
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
    return new Flood(completed.sum(), heap.peak(false), heap.peak(true), live);
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
    private final Method getName;
    private final Method getUsed;

    HeapPools() throws ReflectiveOperationException {
      Class<?> factory = Class.forName("java.lang.management.ManagementFactory");
      Class<?> pool = Class.forName("java.lang.management.MemoryPoolMXBean");
      resetPeakUsage = pool.getMethod("resetPeakUsage");
      getPeakUsage = pool.getMethod("getPeakUsage");
      getUsage = pool.getMethod("getUsage");
      getName = pool.getMethod("getName");
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

    /** Sum of the pools' peaks (an upper bound: pools peak at different times), or old gen only. */
    long peak(boolean oldGenOnly) throws ReflectiveOperationException {
      long sum = 0;
      for (Object pool : pools) {
        String name = (String) getName.invoke(pool);
        if (!oldGenOnly || name.contains("Old") || name.contains("Tenured")) {
          sum += (long) getUsed.invoke(getPeakUsage.invoke(pool));
        }
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
