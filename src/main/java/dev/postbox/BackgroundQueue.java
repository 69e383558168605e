package dev.postbox;

import dev.postbox.internal.Require;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * A bounded in-process queue that runs {@link BackgroundTask}s on virtual threads; its tasks live
 * only in memory and are lost if the process dies (use the durable job queue or the outbox when
 * they must not be).
 *
 * <p>Thread-safe: any number of threads may enqueue at once; at most {@code workers} tasks run at a
 * time, each on its own fresh virtual thread with the MDC of the thread that enqueued it, and
 * {@link #enqueue} blocks its caller while {@code capacity} tasks are already waiting.
 *
 * <p>Every accepted task ends in exactly one of the counters of {@link Stats}: completed, failed
 * (it threw; logged at WARN with the exception) or discarded (dropped or interrupted by {@link
 * #close()}), so once {@code close()} has returned, {@code submitted == completed + failed +
 * discarded}. Tasks start in the order they were accepted.
 */
public final class BackgroundQueue implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(BackgroundQueue.class);

  /** How long {@link #close()} waits for interrupted tasks to end before it returns anyway. */
  private static final Duration INTERRUPT_GRACE = Duration.ofSeconds(1);

  // Life cycle of a task that holds a permit. Whoever moves it out of NEW or RUNNING, its own
  // thread (to DONE) or close() (to DISCARDED), counts it: nothing is counted twice or lost.
  private static final int NEW = 0;
  private static final int RUNNING = 1;
  private static final int DONE = 2;
  private static final int DISCARDED = 3;

  private final String name;
  private final int workers;
  private final int capacity;
  private final Duration drainTimeout;
  private final ClassLoader contextClassLoader = Thread.currentThread().getContextClassLoader();
  private final ThreadFactory threads;
  private final LongAdder completed = new LongAdder();
  private final LongAdder failed = new LongAdder();

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition notFull = lock.newCondition();
  private final Condition idle = lock.newCondition(); // also signalled on termination
  // Guarded by lock. The semaphore of `workers` permits is kept as slots under the queue's lock,
  // so that "take a permit or wait in line" is one step. A task takes a free slot before its
  // thread starts; when it ends it passes the slot straight to the next waiting task and starts
  // that task's thread. A free slot therefore means that no task is waiting. The slots also tell
  // close() which tasks to interrupt.
  private final ArrayDeque<Worker> waiting = new ArrayDeque<>();
  private final Worker[] slots;
  private final int[] freeSlots;
  private int free;
  private boolean closed;
  private boolean terminated;
  private long submitted;
  private long discarded;

  private BackgroundQueue(Builder builder) {
    this.name = builder.name;
    this.workers = builder.workers;
    this.capacity = builder.capacity;
    this.drainTimeout = builder.drainTimeout;
    this.slots = new Worker[workers];
    this.freeSlots = new int[workers];
    for (int i = 0; i < workers; i++) {
      freeSlots[free++] = workers - 1 - i;
    }
    // No inherited thread-locals: each task starts clean and gets the MDC it was enqueued with.
    this.threads =
        Thread.ofVirtual().name(name + "-task").inheritInheritableThreadLocals(false).factory();
    log.info(
        "{} - started, {} workers, capacity {}, drain timeout {}",
        name,
        workers,
        capacity,
        drainTimeout);
  }

  /** Returns a builder with the defaults: 4 workers, capacity 1000, drain timeout 5 seconds. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Adds a task, waiting while the queue is full (backpressure).
   *
   * <p>Safe to call from any thread; the caller's MDC is captured now and set inside the task.
   *
   * @throws PostboxException if the queue is closed (also when it closes while the caller waits),
   *     or if the caller is interrupted while waiting (its interrupt status is kept)
   * @throws InvalidValueException if {@code task} is null
   */
  public void enqueue(BackgroundTask task) {
    put(task, Long.MAX_VALUE);
  }

  /**
   * Adds a task if there is room within {@code timeout}, and says whether it did.
   *
   * <p>Safe to call from any thread; {@link Duration#ZERO} never waits. The caller's MDC is
   * captured now and set inside the task.
   *
   * @return false if the queue stayed full for {@code timeout}; the task was not added
   * @throws PostboxException if the queue is closed or the caller is interrupted while waiting
   * @throws InvalidValueException if {@code task} or {@code timeout} is null, or if {@code timeout}
   *     is negative
   */
  public boolean offer(BackgroundTask task, Duration timeout) {
    Require.notNull("timeout", timeout);
    if (timeout.isNegative()) {
      throw new InvalidValueException("timeout", "must not be negative but was " + timeout);
    }
    return put(task, TimeUnit.NANOSECONDS.convert(timeout));
  }

  private boolean put(BackgroundTask task, long nanos) {
    Worker worker = new Worker(Require.notNull("task", task), MDC.getCopyOfContextMap());
    lock.lock();
    try {
      while (waiting.size() == capacity && !closed) {
        if (nanos <= 0) {
          return false;
        }
        nanos = notFull.awaitNanos(nanos);
      }
      if (closed) {
        throw new PostboxException(name + " is closed; it accepts no new tasks");
      }
      submitted++;
      if (free == 0) {
        waiting.addLast(worker);
        return true;
      }
      worker.slot = freeSlots[--free];
      slots[worker.slot] = worker;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new PostboxException(name + " - interrupted while waiting for space; not enqueued", e);
    } finally {
      lock.unlock();
    }
    threads.newThread(worker).start();
    return true;
  }

  /**
   * Counts of this queue's tasks; exact once {@link #close()} has returned.
   *
   * <p>Safe to call from any thread. While tasks are running, a task that is finishing may briefly
   * show both in {@code running} and in its outcome.
   */
  public Stats stats() {
    lock.lock();
    try {
      return new Stats(
          submitted, completed.sum(), failed.sum(), discarded, waiting.size(), workers - free);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Stops accepting tasks at once, runs the queued ones for up to the drain timeout, then drops
   * what is still queued and interrupts what is still running, counting both as discarded.
   *
   * <p>Blocks until then, plus at most one second for interrupted tasks to end; a task that ignores
   * the interrupt keeps running but is counted as discarded, and its outcome is ignored.
   * Idempotent: a second call waits for the first to finish. Do not call it from a task.
   */
  @Override
  public void close() {
    lock.lock();
    try {
      if (closed) {
        while (!terminated) {
          idle.awaitUninterruptibly();
        }
        return;
      }
      closed = true;
      notFull.signalAll(); // waiting producers are refused
    } finally {
      lock.unlock();
    }
    List<Thread> interrupted = List.of();
    if (!awaitIdle(TimeUnit.NANOSECONDS.convert(drainTimeout))) {
      interrupted = discardRemaining();
    }
    // Tasks that had just finished are handing back their permits; interrupted ones are ending.
    long deadline = System.nanoTime() + TimeUnit.NANOSECONDS.convert(INTERRUPT_GRACE);
    awaitIdle(deadline - System.nanoTime());
    try {
      for (Thread thread : interrupted) {
        if (!thread.join(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())))) {
          log.warn("{} - an interrupted task is still running; counted as discarded", name);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    lock.lock();
    try {
      terminated = true;
      idle.signalAll();
    } finally {
      lock.unlock();
    }
    log.info("{} - closed, {}", name, stats());
  }

  /** Waits until nothing is queued or running; false on timeout or interrupt. */
  private boolean awaitIdle(long nanos) {
    lock.lock();
    try {
      while (!waiting.isEmpty() || free < workers) {
        if (nanos <= 0) {
          return false;
        }
        nanos = idle.awaitNanos(nanos);
      }
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    } finally {
      lock.unlock();
    }
  }

  /** Drops the queued tasks, interrupts the running ones and returns their threads. */
  private List<Thread> discardRemaining() {
    List<Thread> interrupted = new ArrayList<>();
    int queued;
    int stopped = 0;
    lock.lock();
    try {
      queued = waiting.size();
      waiting.clear();
      for (Worker worker : slots) {
        if (worker == null) {
          continue;
        }
        // States only move forward, so NEW then RUNNING misses no task that has not counted itself.
        boolean running = !worker.state.compareAndSet(NEW, DISCARDED);
        if (running && !worker.state.compareAndSet(RUNNING, DISCARDED)) {
          continue; // it has just finished and counted itself
        }
        stopped++;
        worker.releaseSlot();
        if (running) {
          worker.thread.interrupt();
          interrupted.add(worker.thread);
        }
      }
      discarded += queued + stopped;
    } finally {
      lock.unlock();
    }
    if (queued + stopped > 0) {
      log.warn(
          "{} - drain timeout {} passed: discarded {} queued tasks and interrupted {} running ones",
          name,
          drainTimeout,
          queued,
          stopped);
    }
    return interrupted;
  }

  /** One accepted task with the MDC it was enqueued with; runs as its own virtual thread. */
  private final class Worker implements Runnable {
    private final BackgroundTask task;
    private final Map<String, String> mdc;
    private final AtomicInteger state = new AtomicInteger(NEW);
    private volatile Thread thread; // set when it starts, before it can be RUNNING
    private int slot = -1; // guarded by lock

    Worker(BackgroundTask task, Map<String, String> mdc) {
      this.task = task;
      this.mdc = mdc;
    }

    @Override
    public void run() {
      thread = Thread.currentThread();
      try {
        if (state.compareAndSet(NEW, RUNNING)) {
          runTask();
        }
      } finally {
        Worker next = handOver();
        if (next != null) {
          threads.newThread(next).start();
        }
      }
    }

    private void runTask() {
      thread.setContextClassLoader(contextClassLoader);
      if (mdc != null) {
        MDC.setContextMap(mdc);
      }
      try {
        Throwable failure = null;
        try {
          task.run();
        } catch (Throwable e) {
          failure = e;
        }
        if (!state.compareAndSet(RUNNING, DONE)) {
          return; // close() discarded it and counted it
        }
        if (failure == null) {
          completed.increment();
        } else if (failure instanceof Exception) {
          failed.increment();
          log.warn("{} - task failed", name, failure);
        } else {
          failed.increment();
          log.error("{} - task failed", name, failure);
        }
      } finally {
        MDC.clear();
      }
    }

    /** Passes this task's permit to the next waiting task, whose thread the caller starts. */
    private Worker handOver() {
      lock.lock();
      try {
        if (state.get() == DISCARDED) {
          return null; // close() took the permit back
        }
        Worker next = waiting.pollFirst();
        if (next == null) {
          releaseSlot();
          return null;
        }
        next.slot = slot;
        slots[slot] = next;
        notFull.signal();
        return next;
      } finally {
        lock.unlock();
      }
    }

    /** Frees this task's permit; the lock is held. */
    void releaseSlot() {
      slots[slot] = null;
      freeSlots[free++] = slot;
      if (closed && free == workers) {
        idle.signalAll();
      }
    }
  }

  /**
   * Counts of a {@link BackgroundQueue}'s tasks at one moment.
   *
   * @param submitted tasks accepted by {@code enqueue}/{@code offer}
   * @param completed tasks that returned normally
   * @param failed tasks that threw (each logged at WARN, or ERROR for an {@link Error})
   * @param discarded tasks dropped from the queue or interrupted by {@code close()}
   * @param queued tasks waiting for a worker
   * @param running tasks holding a worker permit: starting, running or just finished
   */
  public record Stats(
      long submitted, long completed, long failed, long discarded, int queued, int running) {}

  /**
   * Options of a {@link BackgroundQueue}, each validated as it is set.
   *
   * <p>Not thread-safe; {@link #build()} copies the options, so the queue never sees later changes.
   */
  public static final class Builder {
    private String name = "background-queue";
    private int workers = 4;
    private int capacity = 1000;
    private Duration drainTimeout = Duration.ofSeconds(5);

    private Builder() {}

    /** Name used in logs and thread names (default {@code background-queue}); 1–100 chars. */
    public Builder name(String name) {
      Require.notNull("name", name);
      if (name.isBlank() || name.length() > 100) {
        throw new InvalidValueException(
            "name", "must be 1 to 100 characters and not blank but was \"" + name + "\"");
      }
      this.name = name;
      return this;
    }

    /** Tasks running at once (default 4, for I/O-bound side effects); 1 to 10000. */
    public Builder workers(int workers) {
      this.workers = Require.between("workers", workers, 1, 10_000);
      return this;
    }

    /** Tasks waiting for a worker before {@code enqueue} blocks (default 1000); 1 to 1000000. */
    public Builder capacity(int capacity) {
      this.capacity = Require.between("capacity", capacity, 1, 1_000_000);
      return this;
    }

    /**
     * How long {@link BackgroundQueue#close()} keeps running queued tasks (default 5 s); zero
     * discards them at once; at most one hour.
     */
    public Builder drainTimeout(Duration drainTimeout) {
      Require.notNull("drainTimeout", drainTimeout);
      this.drainTimeout =
          Require.between("drainTimeout", drainTimeout, Duration.ZERO, Duration.ofHours(1));
      return this;
    }

    /** Creates the queue; it starts threads only for tasks. */
    public BackgroundQueue build() {
      return new BackgroundQueue(this);
    }
  }
}
