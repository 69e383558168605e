package dev.postbox.internal.lane;

import dev.postbox.internal.sql.Claimed;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A lane's delivery slots: at most {@code concurrency} deliveries run at once, each on its own
 * virtual thread (never pooled: a thread-local set by one delivery must not reach the next). A
 * delivery is one row, a run of rows of one key, or all rows of a claim for a batch transport
 * ({@link DeliveryUnits#of}). Claimed deliveries wait for a slot; a delivery that ends while others
 * wait starts the next one itself and passes its slot on, so a claim loop wakes once per batch
 * (when it has started and a slot is free, or when fewer than a batch waits), not once per row.
 * Thread-safe: the claim loops, delivery threads and close() meet here under one lock.
 */
final class DeliverySlots<T> {
  private static final Logger log = LoggerFactory.getLogger(DeliverySlots.class);

  private final String name;
  private final int concurrency;
  private final OutcomeQueue outcomes;
  private final Outage outage;
  private final BooleanSupplier stopping;
  private final Function<List<Claimed<T>>, Runnable> task;
  // one name for all: building a name per thread costs more than starting the thread
  private final Thread.Builder threads;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition slotFreed = lock.newCondition();
  private volatile int running; // written under lock; read without it
  private final WaitingDeliveries<T> waiting; // guarded by lock
  private final Set<Thread> deliveries = new HashSet<>(); // guarded by lock

  /**
   * @param task the delivery of some rows, run on their thread; it must call {@link #finished}
   */
  DeliverySlots(
      String name,
      int concurrency,
      int batchSize,
      OutcomeQueue outcomes,
      Outage outage,
      BooleanSupplier stopping,
      Function<List<Claimed<T>>, Runnable> task) {
    this.name = name;
    this.concurrency = concurrency;
    this.waiting = new WaitingDeliveries<>(lock, batchSize);
    this.outcomes = outcomes;
    this.outage = outage;
    this.stopping = stopping;
    this.task = task;
    // a delivery thread is created by the one before it: inherit nothing from user code
    this.threads =
        Thread.ofVirtual().name(name + "-delivery").inheritInheritableThreadLocals(false);
  }

  int running() {
    return running;
  }

  /**
   * Starts a delivery for each of {@code units} (its rows go to one delivery thread, in order), or
   * queues it for a slot. Hands them back instead while stopping, and during an outage all but the
   * first unit (the probe) if {@code mayProbe}, else all.
   */
  void start(List<List<Claimed<T>>> units, boolean mayProbe) {
    List<Thread> started = new ArrayList<>(Math.min(units.size(), concurrency));
    List<List<Claimed<T>>> startedRows = new ArrayList<>(started.size());
    List<List<Claimed<T>>> handBack = List.of();
    lock.lock();
    try {
      if (stopping.getAsBoolean()) {
        handBack = units;
      } else {
        int end = units.size();
        if (outage.active()) {
          end = mayProbe ? 1 : 0;
          handBack = units.subList(end, units.size());
        }
        for (int i = 0; i < end; i++) {
          startOrQueue(units.get(i), started, startedRows);
        }
      }
    } finally {
      lock.unlock();
    }
    for (int i = 0; i < started.size(); i++) {
      start(started.get(i), startedRows.get(i));
    }
    int handedBack = 0;
    for (List<Claimed<T>> rows : handBack) {
      handedBack += release(rows);
    }
    logHandBack(handedBack);
  }

  private void startOrQueue(
      List<Claimed<T>> rows, List<Thread> started, List<List<Claimed<T>>> startedRows) {
    if (running < concurrency && waiting.isEmpty()) {
      running++;
      started.add(thread(rows));
      startedRows.add(rows);
    } else {
      waiting.add(rows);
    }
  }

  /** The delivery thread of {@code rows}, not yet started, registered for interruption. */
  private Thread thread(List<Claimed<T>> rows) {
    Thread t = threads.unstarted(task.apply(rows));
    deliveries.add(t);
    return t;
  }

  /**
   * Ends the delivery on {@code delivery} (its own thread, or the watchdog for one that timed out):
   * passes its slot to the next waiting delivery (or, while stopping or in an outage, hands the
   * waiting rows back), else frees the slot. A thread that timed out is no longer interrupted at
   * shutdown: it holds no slot.
   */
  void finished(Thread delivery) {
    Thread next = null;
    List<Claimed<T>> nextRows;
    int handedBack = 0;
    boolean idle = false;
    lock.lock();
    try {
      deliveries.remove(delivery);
      if (!waiting.isEmpty() && (stopping.getAsBoolean() || outage.active())) {
        // queued before this slot is freed, so close() cannot stop the writer before them
        handedBack = release(waiting.takeAll());
      }
      nextRows = waiting.poll();
      if (nextRows != null) {
        next = thread(nextRows); // the slot passes on: running stays as it is
      } else {
        running--;
        idle = running == 0;
        slotFreed.signalAll();
      }
    } finally {
      lock.unlock();
    }
    if (next != null && !start(next, nextRows)) {
      idle = running == 0;
    }
    if (idle) {
      outcomes.nudge();
    }
    logHandBack(handedBack);
  }

  /**
   * Ends the calling delivery by starting {@code next} on a fresh thread in its slot (the next row
   * of a run). False, with nothing started and the slot still the caller's, while stopping or if no
   * thread can start.
   */
  boolean passOn(Runnable next) {
    Thread thread;
    lock.lock();
    try {
      if (stopping.getAsBoolean()) {
        return false;
      }
      thread = threads.unstarted(next);
      deliveries.remove(Thread.currentThread());
      deliveries.add(thread);
    } finally {
      lock.unlock();
    }
    try {
      thread.start();
      return true;
    } catch (RuntimeException | OutOfMemoryError e) {
      lock.lock();
      try {
        deliveries.remove(thread);
        deliveries.add(Thread.currentThread());
      } finally {
        lock.unlock();
      }
      log.error("{} - cannot start a delivery thread; handing the rest of a run back", name, e);
      return false;
    }
  }

  /**
   * Starts a delivery thread whose slot is already counted; if the JVM cannot start it, gives the
   * slot back and hands the rows back. False if it did not start.
   */
  private boolean start(Thread thread, List<Claimed<T>> rows) {
    try {
      thread.start();
      return true;
    } catch (RuntimeException | OutOfMemoryError e) {
      lock.lock();
      try {
        deliveries.remove(thread);
        running--;
        slotFreed.signalAll();
      } finally {
        lock.unlock();
      }
      release(rows);
      log.error(
          "{} - cannot start a delivery thread; handing {} rows back (first id={})",
          name,
          rows.size(),
          rows.get(0).id(),
          e);
      return false;
    }
  }

  /**
   * Hands back the rows waiting for a slot: due when they were before their claim, attempt
   * refunded.
   */
  void handBackWaiting() {
    List<Claimed<T>> rows;
    lock.lock();
    try {
      rows = waiting.takeAll();
    } finally {
      lock.unlock();
    }
    logHandBack(release(rows));
  }

  /**
   * Queues the hand-back outcomes (never blocks: safe under the lock); returns how many. A probe
   * among them was never sent, so it is no longer in flight and the next one may go.
   */
  private int release(List<Claimed<T>> rows) {
    for (Claimed<T> row : rows) {
      outcomes.add(new Outcome(row, Outcome.Kind.RELEASED, null, Duration.ZERO, 0));
      outage.ended(row.id());
    }
    return rows.size();
  }

  private void logHandBack(int rows) {
    if (rows > 0) {
      log.info("{} - handing back {} claimed rows that had not started", name, rows);
    }
  }

  /**
   * Waits until every claimed delivery has started and a slot is free, so at most a batch plus the
   * running deliveries are held; false if the lane is stopping.
   */
  boolean awaitSlot() {
    lock.lock();
    try {
      while ((running >= concurrency || !waiting.isEmpty()) && !stopping.getAsBoolean()) {
        slotFreed.awaitUninterruptibly();
      }
      return !stopping.getAsBoolean();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Waits until fewer than a batch of claimed rows wait for a slot, however many deliveries run, so
   * that the next claim is under way while the last ones are delivered; false if the lane is
   * stopping. With every loop of a lane waiting here or in {@link #awaitSlot}, at most a batch per
   * loop waits, plus one more batch when the main loop waits here.
   */
  boolean awaitRoom() {
    lock.lock();
    try {
      return waiting.awaitRoom(stopping);
    } finally {
      lock.unlock();
    }
  }

  /** Wakes a claim loop waiting for a slot: the lane is stopping. */
  void stopWaiting() {
    lock.lock();
    try {
      slotFreed.signalAll();
      waiting.wakeAll();
    } finally {
      lock.unlock();
    }
  }

  void interruptAll() {
    lock.lock();
    try {
      log.warn(
          "{} - interrupting {} deliveries still running after the shutdown timeout",
          name,
          deliveries.size());
      deliveries.forEach(Thread::interrupt);
    } finally {
      lock.unlock();
    }
  }

  /** Waits until no delivery runs; false if {@code deadlineNanos} passed first. */
  boolean awaitIdle(long deadlineNanos) throws InterruptedException {
    lock.lock();
    try {
      while (running > 0) {
        long left = deadlineNanos - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        slotFreed.awaitNanos(left);
      }
      return true;
    } finally {
      lock.unlock();
    }
  }

  /** {@link #awaitIdle} that waits through interrupts; true if it was interrupted. */
  boolean awaitIdleUninterruptibly(long deadlineNanos) {
    boolean interrupted = false;
    while (true) {
      try {
        awaitIdle(deadlineNanos);
        return interrupted;
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
  }
}
