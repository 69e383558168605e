package dev.postbox.internal.lane;

import dev.postbox.internal.Joins;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A lane's watchdog: one virtual thread that ends the deliveries running past their timeout. Each
 * delivery with a timeout is {@linkplain #watch watched}; the delivery and its timeout then race to
 * {@linkplain Watch#settle settle} it, and whoever comes first decides its outcome: the delivery,
 * by returning or throwing in time, or the watchdog, which interrupts the delivery's thread and
 * runs the timeout's action (record the failure, free the slot) on its own thread. The loser's
 * outcome is dropped. A thread still alive {@code grace} after its interrupt ignored it: it is
 * abandoned with one WARN, and whatever it does later is dropped (it no longer holds a slot).
 *
 * <p>The watchdog sleeps until the earliest deadline; a delivery whose deadline comes sooner wakes
 * it. Thread-safe: delivery threads watch and settle, the watchdog times out.
 */
final class DeliveryTimeouts {
  private static final Logger log = LoggerFactory.getLogger(DeliveryTimeouts.class);
  private static final long LONGEST_SLEEP_NANOS = TimeUnit.HOURS.toNanos(1);

  /** A watch that never times out: the delivery always settles it. */
  static final Watch NONE = new Watch(null, null, 0, null, null, null);

  /** One delivery under watch; settled once, by the delivery or by its timeout. */
  static final class Watch {
    private final AtomicBoolean settled = new AtomicBoolean();
    private final DeliveryTimeouts owner; // null for NONE
    private final Thread thread;
    private final long deadline;
    private final Duration timeout;
    private final Runnable onTimeout;
    private final Supplier<String> what;
    private int cell; // its place in cells, -1 in overflow; written before it is published
    private long abandonAt; // watchdog thread only

    private Watch(
        DeliveryTimeouts owner,
        Thread thread,
        long deadline,
        Duration timeout,
        Runnable onTimeout,
        Supplier<String> what) {
      this.owner = owner;
      this.thread = thread;
      this.deadline = deadline;
      this.timeout = timeout;
      this.onTimeout = onTimeout;
      this.what = what;
    }

    /**
     * The delivery's claim on its outcome, once it returned or threw: true if it came before its
     * timeout and is to record its outcome; false if the timeout came first and recorded one.
     */
    boolean settle() {
      if (owner == null) {
        return true;
      }
      if (!settled.compareAndSet(false, true)) {
        return false;
      }
      owner.forget(this);
      return true;
    }
  }

  private final String name;
  private final long graceNanos;
  private final Thread thread;
  // the watches: each in a cell of its own, found from its thread's id (a cell costs a delivery
  // less than a concurrent set's add and remove); more at once than cells go to the overflow
  private final AtomicReferenceArray<Watch> cells;
  private final Set<Watch> overflow = ConcurrentHashMap.newKeySet();
  private final List<Watch> interrupted = new ArrayList<>(); // watchdog thread only
  // what the watchdog sleeps until, and whether it is looking at the watches (then it sees a new
  // one itself or sleeps no longer than its deadline): a watch due sooner wakes it
  private volatile long wakeAt;
  private volatile boolean scanning = true;
  // the shortest timeout watched so far: with nothing watched the watchdog sleeps that long, which
  // no later watch of a timeout as long ends before, so that such a watch need not wake it (short
  // deliveries are mostly over by the time it looks: it found none and was woken by the next)
  private volatile long shortestNanos = LONGEST_SLEEP_NANOS;
  private volatile boolean stopped;

  /**
   * @param name the lane's name, for the thread and the logs
   * @param grace how long a thread may take to end after its interrupt before it is abandoned
   * @param concurrency how many deliveries are watched at once, at most, as a rule
   */
  DeliveryTimeouts(String name, Duration grace, int concurrency) {
    this.name = name;
    this.graceNanos = grace.toNanos();
    this.cells =
        new AtomicReferenceArray<>(Integer.highestOneBit(Math.max(8, concurrency) * 4 - 1));
    this.thread = Thread.ofVirtual().name(name + "-timeouts").unstarted(this::run);
  }

  void start() {
    thread.start();
  }

  /**
   * Watches the delivery running on the calling thread: unless it {@linkplain Watch#settle settles}
   * within {@code timeout} of {@code startedNanos} (its {@link System#nanoTime} when it started),
   * its thread is interrupted and {@code onTimeout} runs on the watchdog's thread. {@code timeout}
   * null: no limit, the {@link #NONE} watch.
   *
   * @param what names the delivery in the WARN if it ignores the interrupt (ids, never payloads)
   */
  Watch watch(Duration timeout, long startedNanos, Runnable onTimeout, Supplier<String> what) {
    if (timeout == null) {
      return NONE;
    }
    long timeoutNanos = timeout.toNanos();
    if (timeoutNanos < shortestNanos) {
      shortestNanos = timeoutNanos; // a race may keep a longer one: the deadline test below holds
    }
    long deadline = startedNanos + timeoutNanos;
    Watch w = new Watch(this, Thread.currentThread(), deadline, timeout, onTimeout, what);
    place(w);
    if (scanning || deadline - wakeAt < 0) {
      LockSupport.unpark(thread);
    }
    return w;
  }

  /**
   * Stops the watchdog and waits for it; deliveries still watched run on without a timeout. True if
   * the caller was interrupted meanwhile (it still waits).
   */
  boolean close() {
    stopped = true;
    LockSupport.unpark(thread);
    return thread.isAlive() && Joins.join(thread, Duration.ofDays(1));
  }

  /** Puts {@code w} in a free cell, the first from its thread's id on, or in the overflow. */
  private void place(Watch w) {
    int mask = cells.length() - 1;
    int start = (int) w.thread.threadId();
    for (int i = 0; i <= mask; i++) {
      w.cell = (start + i) & mask;
      if (cells.get(w.cell) == null && cells.compareAndSet(w.cell, null, w)) {
        return;
      }
    }
    w.cell = -1;
    overflow.add(w);
  }

  /** Drops {@code w}, settled just now: only the one who settled it does. */
  private void forget(Watch w) {
    if (w.cell >= 0) {
      cells.set(w.cell, null);
    } else {
      overflow.remove(w);
    }
  }

  private void run() {
    while (!stopped) {
      scanning = true;
      long now = System.nanoTime();
      long next = now + shortestNanos;
      for (int i = 0; i < cells.length(); i++) {
        Watch w = cells.get(i);
        next = w == null ? next : check(w, now, next);
      }
      for (Watch w : overflow) {
        next = check(w, now, next);
      }
      next = abandonIgnored(now, next);
      wakeAt = next;
      scanning = false;
      long wait = next - System.nanoTime();
      if (wait > 0 && !stopped) {
        LockSupport.parkNanos(this, wait);
      }
    }
  }

  /** Times {@code w} out if its deadline has passed; returns the sooner of it and {@code next}. */
  private long check(Watch w, long now, long next) {
    if (now - w.deadline < 0) {
      return w.deadline - next < 0 ? w.deadline : next;
    }
    if (w.settled.compareAndSet(false, true)) {
      forget(w);
      timeOut(w);
    }
    return next;
  }

  /** Interrupts the delivery's thread, then records its timeout (its slot is free after this). */
  private void timeOut(Watch w) {
    w.thread.interrupt();
    try {
      w.onTimeout.run();
    } catch (Throwable e) { // a bug: the watchdog must go on for the other deliveries
      log.error("{} - recording the timeout of {} failed", name, w.what.get(), e);
    }
    w.abandonAt = System.nanoTime() + graceNanos;
    interrupted.add(w);
  }

  /**
   * WARNs once about each interrupted thread still alive after the grace; returns the sooner of
   * {@code next} and the next such check.
   */
  private long abandonIgnored(long now, long next) {
    for (Iterator<Watch> it = interrupted.iterator(); it.hasNext(); ) {
      Watch w = it.next();
      if (!w.thread.isAlive()) {
        it.remove();
      } else if (now - w.abandonAt >= 0) {
        it.remove();
        log.warn(
            "{} - {} timed out after {} and ignored the interrupt: abandoning its thread, which"
                + " runs on; whatever it returns or throws later is dropped",
            name,
            w.what.get(),
            w.timeout);
      } else if (w.abandonAt - next < 0) {
        next = w.abandonAt;
      }
    }
    return next;
  }
}
