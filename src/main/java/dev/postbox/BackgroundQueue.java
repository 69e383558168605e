package dev.postbox;

import dev.postbox.internal.FreeSlots;
import dev.postbox.internal.Require;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
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
 * discarded}. Waiting tasks get a worker in the order they were accepted.
 */
public final class BackgroundQueue implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(BackgroundQueue.class);

  /** How long {@link #close()} waits for interrupted tasks to end before it returns anyway. */
  private static final Duration INTERRUPT_GRACE = Duration.ofSeconds(1);

  // The queue in one word, so that "take a free permit or get in line" and "pass my permit to the
  // head of the line or give it back" are each one compare-and-set, without a lock. Bits 0-15:
  // free permits (workers <= 10,000); bits 16-39: tasks in line (capacity <= 1,000,000); then
  // flags for "a producer waits for room", "... and wants it now" and "closed". A free permit
  // therefore means an empty line, until close() starts discarding.
  private static final long FREE_ONE = 1L;
  private static final long FREE = 0xFFFFL;
  private static final long WAITING_ONE = 1L << 16;
  private static final long WAITING = 0xFF_FFFFL << 16;
  private static final long PRODUCER_WAITS = 1L << 40;
  private static final long PRODUCER_IN_A_HURRY = 1L << 41;
  private static final long CLOSED = 1L << 42;

  // Life cycle of a task that holds a permit. Whoever moves it out of NEW or RUNNING, its own
  // thread (to DONE) or close() (to DISCARDED), counts it: nothing is counted twice or lost.
  private static final int NEW = 0;
  private static final int RUNNING = 1;
  private static final int DONE = 2;
  private static final int DISCARDED = 3;

  /** How long a producer waits for a batch of free places before it asks for a single one. */
  private static final long LAZY_WAIT_NANOS = TimeUnit.MICROSECONDS.toNanos(200);

  private final String name;
  private final int workers;
  private final int capacity;
  private final int wakeBatch; // free places that wake a producer waiting without hurry
  private final Duration drainTimeout;
  private final ClassLoader contextClassLoader = Thread.currentThread().getContextClassLoader();
  private final ThreadFactory threads;
  private final AtomicLong state;
  // A task counted in the line may not be in it yet: its producer adds it just after counting it,
  // so whoever takes it out waits that moment. The same holds for a permit given back and its slot.
  private final ConcurrentLinkedQueue<Worker> line = new ConcurrentLinkedQueue<>();
  private final AtomicReferenceArray<Worker> slots; // the task holding each permit, for close()
  private final FreeSlots freeSlots;
  private final LongAdder submitted = new LongAdder();
  private final LongAdder completed = new LongAdder();
  private final LongAdder failed = new LongAdder();
  private final LongAdder discarded = new LongAdder();
  private volatile boolean discarding; // set by close() once the drain timeout has passed

  // Only producers waiting for room and close() use the lock.
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition notFull = lock.newCondition();
  private final Condition idle = lock.newCondition(); // also signalled on termination
  private boolean terminated; // guarded by lock

  private BackgroundQueue(Builder builder) {
    this.name = builder.name;
    this.workers = builder.workers;
    this.capacity = builder.capacity;
    this.wakeBatch = Math.max(1, Math.min(256, capacity / 4));
    this.drainTimeout = builder.drainTimeout;
    this.state = new AtomicLong(workers * FREE_ONE);
    this.slots = new AtomicReferenceArray<>(workers);
    this.freeSlots = new FreeSlots(workers);
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
   * <p>Safe to call from any thread; the caller's MDC is captured now and set inside the task. A
   * waiting caller resumes once a quarter of the capacity (at most 256 places) is free, and at most
   * 0.2 ms after the first place frees: waking it for each single place would cost a busy queue
   * more than its tasks.
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
    boolean forever = nanos == Long.MAX_VALUE;
    boolean foundFull = false;
    long deadline = 0; // counted from when the queue is first found full
    for (; ; ) {
      long s = state.get();
      if ((s & CLOSED) != 0) {
        throw new PostboxException(name + " is closed; it accepts no new tasks");
      }
      if ((s & FREE) != 0) {
        if (state.compareAndSet(s, s - FREE_ONE)) {
          submitted.increment();
          start(worker, takeFreeSlot());
          return true;
        }
      } else if (waiting(s) < capacity) {
        if (state.compareAndSet(s, s + WAITING_ONE)) {
          submitted.increment(); // before the task can be seen in line, for exact counts
          line.offer(worker);
          return true;
        }
      } else {
        if (!foundFull) {
          foundFull = true;
          deadline = System.nanoTime() + nanos; // may overflow; only differences are used
        }
        if (!awaitRoom(forever, deadline)) {
          return false;
        }
      }
    }
  }

  /**
   * Waits until the queue may have room or is closed; false if it was still full at the deadline.
   *
   * <p>A busy queue makes room one task at a time, a few hundred nanoseconds apart, and waking a
   * producer costs more than that. So a producer first asks to be woken once {@code wakeBatch}
   * places are free, waiting at most {@link #LAZY_WAIT_NANOS}; if the queue is still full then, it
   * asks to be woken as soon as one place is.
   */
  private boolean awaitRoom(boolean forever, long deadline) {
    lock.lock();
    try {
      boolean lazy = true;
      for (; ; ) {
        long s = state.get();
        if ((s & (CLOSED | FREE)) != 0 || waiting(s) < capacity) {
          return true;
        }
        long nanos = forever ? Long.MAX_VALUE : deadline - System.nanoTime();
        if (nanos <= 0) {
          return false;
        }
        // Set under the lock and only while full: whoever then makes room sees it and signals.
        long flags = lazy ? PRODUCER_WAITS : PRODUCER_WAITS | PRODUCER_IN_A_HURRY;
        if ((s & flags) != flags && !state.compareAndSet(s, s | flags)) {
          continue;
        }
        notFull.awaitNanos(lazy ? Math.min(nanos, LAZY_WAIT_NANOS) : nanos);
        lazy = false;
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new PostboxException(name + " - interrupted while waiting for space; not enqueued", e);
    } finally {
      lock.unlock();
    }
  }

  /** Wakes one or all producers waiting for room; the flags stay up while any still wait. */
  private void wakeProducers(boolean all) {
    lock.lock();
    try {
      if (all) {
        notFull.signalAll();
      } else {
        notFull.signal();
      }
      if (!lock.hasWaiters(notFull)) {
        long s;
        do {
          s = state.get();
        } while (!state.compareAndSet(s, s & ~(PRODUCER_WAITS | PRODUCER_IN_A_HURRY)));
      }
    } finally {
      lock.unlock();
    }
  }

  /** Gives a task the permit and slot it holds, then starts its thread. */
  private void start(Worker worker, int slot) {
    worker.slot = slot;
    slots.set(slot, worker);
    // close() may have passed over this slot before it was filled; then the task is ours to drop.
    if (discarding) {
      if (worker.discard()) {
        discarded.increment();
        releasePermit(slot);
      } // else close() saw it, dropped it and took its permit back
      return;
    }
    threads.newThread(worker).start();
  }

  /** Passes a finished task's permit to the head of the line, or gives it back. */
  private void passPermit(int slot) {
    for (; ; ) {
      long s = state.get();
      if (waiting(s) == 0) {
        if (tryRelease(s, slot)) {
          return;
        }
      } else if (state.compareAndSet(s, s - WAITING_ONE)) {
        if ((s & PRODUCER_WAITS) != 0) {
          boolean batchFree = waiting(s) - 1 <= capacity - wakeBatch;
          if (batchFree || (s & PRODUCER_IN_A_HURRY) != 0) {
            wakeProducers(batchFree);
          }
        }
        start(takeFromLine(), slot);
        return;
      }
    }
  }

  private void releasePermit(int slot) {
    while (!tryRelease(state.get(), slot)) {
      Thread.onSpinWait();
    }
  }

  private boolean tryRelease(long s, int slot) {
    if (!state.compareAndSet(s, s + FREE_ONE)) {
      return false;
    }
    slots.set(slot, null);
    freeSlots.push(slot);
    if ((s & CLOSED) != 0 && isIdle(s + FREE_ONE)) {
      signalIdle();
    }
    return true;
  }

  private Worker takeFromLine() {
    Worker next;
    for (int spins = 0; (next = line.poll()) == null; spins++) {
      pause(spins);
    }
    return next;
  }

  private int takeFreeSlot() {
    int slot;
    for (int spins = 0; (slot = freeSlots.pop()) < 0; spins++) {
      pause(spins);
    }
    return slot;
  }

  /** Waits for another thread between two of its steps: a few spins, then yields. */
  private static void pause(int spins) {
    if (spins < 64) {
      Thread.onSpinWait();
    } else {
      Thread.yield();
    }
  }

  private static int waiting(long s) {
    return (int) ((s & WAITING) >>> 16);
  }

  private boolean isIdle(long s) {
    return (s & WAITING) == 0 && (s & FREE) == workers;
  }

  private void signalIdle() {
    lock.lock();
    try {
      idle.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Counts of this queue's tasks; exact once {@link #close()} has returned.
   *
   * <p>Safe to call from any thread. While tasks are running, a task that is finishing may briefly
   * show both in {@code running} and in its outcome.
   */
  public Stats stats() {
    long s = state.get();
    return new Stats(
        submitted.sum(),
        completed.sum(),
        failed.sum(),
        discarded.sum(),
        waiting(s),
        workers - (int) (s & FREE));
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
    long s = state.get();
    while ((s & CLOSED) == 0 && !state.compareAndSet(s, s | CLOSED)) {
      s = state.get();
    }
    lock.lock();
    try {
      if ((s & CLOSED) != 0) {
        while (!terminated) {
          idle.awaitUninterruptibly();
        }
        return;
      }
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
      while (!isIdle(state.get())) {
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
    discarding = true;
    long s = state.get();
    while (!state.compareAndSet(s, s & ~WAITING)) {
      s = state.get();
    }
    int queued = waiting(s); // closed: no task joins the line any more, and these are ours
    for (int i = 0; i < queued; i++) {
      takeFromLine();
    }
    List<Thread> interrupted = new ArrayList<>();
    int stopped = 0;
    for (int slot = 0; slot < workers; slot++) {
      Worker worker = slots.get(slot);
      if (worker == null) {
        continue;
      }
      // States only move forward, so NEW then RUNNING misses no task that has not counted itself.
      boolean running = !worker.discard();
      if (running && !worker.movePhase(RUNNING, DISCARDED)) {
        continue; // it has just finished and counted itself
      }
      stopped++;
      releasePermit(slot);
      if (running) {
        worker.thread.interrupt();
        interrupted.add(worker.thread);
      }
    }
    discarded.add(queued + stopped);
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
    private static final VarHandle PHASE;

    static {
      try {
        PHASE = MethodHandles.lookup().findVarHandle(Worker.class, "phase", int.class);
      } catch (ReflectiveOperationException e) {
        throw new ExceptionInInitializerError(e);
      }
    }

    private final BackgroundTask task;
    private final Map<String, String> mdc;
    private volatile int phase = NEW;
    private volatile Thread thread; // set when it starts, before it can be RUNNING
    private int slot = -1; // published to its thread by Thread.start

    Worker(BackgroundTask task, Map<String, String> mdc) {
      this.task = task;
      this.mdc = mdc;
    }

    boolean movePhase(int from, int to) {
      return PHASE.compareAndSet(this, from, to);
    }

    /** Drops this task if it has not started; true if this call did. */
    boolean discard() {
      return movePhase(NEW, DISCARDED);
    }

    @Override
    public void run() {
      thread = Thread.currentThread();
      try {
        if (movePhase(NEW, RUNNING)) {
          runTask();
        }
      } finally {
        if (phase != DISCARDED) {
          passPermit(slot); // else close() took the permit back
        }
      }
    }

    private void runTask() {
      thread.setContextClassLoader(contextClassLoader);
      // The MDC dies with this thread: the next task's thread does not inherit it.
      if (mdc != null) {
        MDC.setContextMap(mdc);
      }
      Throwable failure = null;
      try {
        task.run();
      } catch (Throwable e) {
        failure = e;
      }
      if (!movePhase(RUNNING, DONE)) {
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
