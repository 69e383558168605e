package dev.postbox.internal.background;

import dev.postbox.BackgroundQueue.Stats;
import dev.postbox.BackgroundTask;
import dev.postbox.PostboxException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * The working of a background queue: a bounded line of tasks and a {@link Semaphore} of {@code
 * workers} permits; each task gets a fresh virtual thread once it holds a permit.
 *
 * <p>Thread-safe. One {@link ReentrantLock} (never {@code synchronized}: callers may be virtual
 * threads) guards the line, the running tasks and the counts, for a few field updates; whoever
 * moves a task between them counts it. No dispatcher thread: a producer that added a task, and a
 * task that ended (handing its permit to the head of the line), start the next one.
 */
public final class TaskQueue {
  // Named after the public class: that is the name users see in their logs and configure.
  private static final Logger log = LoggerFactory.getLogger("dev.postbox.BackgroundQueue");
  private static final long LAZY_WAIT_NANOS = 200_000;
  private static final long INTERRUPT_GRACE_NANOS = 1_000_000_000;

  private final String name;
  private final int capacity;
  private final int wakeBatch; // free places that wake every producer waiting for room
  private final Duration drainTimeout;
  private final Semaphore permits;
  private final ThreadFactory threads;
  private final ClassLoader contextClassLoader = Thread.currentThread().getContextClassLoader();
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition notFull = lock.newCondition();
  private final Condition ended = lock.newCondition(); // signalled once closing
  private final ArrayDeque<Task> line = new ArrayDeque<>();
  private final Set<Task> running = new HashSet<>();
  private final CompletableFuture<Void> closed = new CompletableFuture<>();
  private boolean closing;
  private volatile boolean abandoned; // close() gave up on the running tasks
  private int hurried; // producers waiting to be woken by a single free place
  private int stopping; // tasks given up on whose threads have not ended yet
  private long submitted;
  private long completed;
  private long failed;
  private long discarded;

  /** A queue whose tasks get the calling thread's context class loader. */
  public TaskQueue(String name, int workers, int capacity, Duration drainTimeout) {
    this.name = name;
    this.capacity = capacity;
    this.wakeBatch = Math.max(1, Math.min(256, capacity / 4));
    this.drainTimeout = drainTimeout;
    this.permits = new Semaphore(workers);
    // No inherited thread-locals: each task starts clean and gets the MDC it was enqueued with.
    // One name for all: a numbered name per thread cost a quarter of the CPU of trivial tasks.
    this.threads =
        Thread.ofVirtual().name(name + "-task").inheritInheritableThreadLocals(false).factory();
  }

  /**
   * Adds a task with the caller's MDC, waiting up to {@code nanos} ({@code Long.MAX_VALUE}: for
   * ever) while the line is full, and starts it if a permit is free; false if it stayed full.
   */
  public boolean put(BackgroundTask body, long nanos) {
    Task task = new Task(body);
    lock.lock();
    try {
      // Waking a producer per free place costs more than a busy queue takes to free one: wait to be
      // woken by a batch of places, and only after LAZY_WAIT_NANOS by a single one.
      for (boolean lazy = true; !closing && line.size() == capacity; lazy = false) {
        if (nanos <= 0) {
          return false;
        } else if (lazy) {
          long wait = Math.min(nanos, LAZY_WAIT_NANOS);
          nanos -= wait - notFull.awaitNanos(wait);
        } else {
          hurried++;
          try {
            nanos = notFull.awaitNanos(nanos); // Long.MAX_VALUE: 292 years, for ever
          } finally {
            hurried--;
          }
        }
      }
      if (closing) {
        throw new PostboxException(name + " is closed; it accepts no new tasks");
      }
      line.add(task);
      submitted++;
      // A permit is free only while the line is empty: this task is the head, or none starts.
      task = permits.tryAcquire() ? takeHead() : null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new PostboxException(name + " - interrupted while waiting for space; not enqueued", e);
    } finally {
      lock.unlock();
    }
    start(task);
    return true;
  }

  /** The counts now; exact once {@link #close()} has returned. */
  public Stats stats() {
    lock.lock();
    try {
      return new Stats(submitted, completed, failed, discarded, line.size(), running.size());
    } finally {
      lock.unlock();
    }
  }

  /**
   * Refuses tasks, waits up to the drain timeout for the queue to empty, then drops what is queued
   * and interrupts what runs, waiting up to a second for those to end. False to every later call,
   * once the first has returned.
   */
  public boolean close() {
    List<Task> given = new ArrayList<>();
    int queued = -1; // stays -1 if an earlier call closes the queue
    lock.lock();
    try {
      if (!closing) {
        closing = true;
        notFull.signalAll();
        await(drainTimeout.toNanos(), () -> line.isEmpty() && running.isEmpty());
        queued = line.size();
        line.clear();
        given.addAll(running);
        running.clear();
        discarded += queued + given.size();
        stopping = given.size();
        abandoned = true;
      }
    } finally {
      lock.unlock();
    }
    if (queued < 0) {
      closed.join(); // ignores interrupts, and keeps the caller's interrupt status
      return false;
    }
    // abandoned was written before a thread is read here, and a thread is set before its task
    // reads abandoned: a task seen without a thread skips its body.
    given.stream().map(t -> t.thread).filter(t -> t != null).forEach(Thread::interrupt);
    if (queued + given.size() > 0) {
      log.warn(
          "{} - drain timeout {} passed: discarded {} queued tasks and interrupted {} running ones",
          name,
          drainTimeout,
          queued,
          given.size());
      // an interrupted caller (also one interrupted during the drain) does not wait
      for (int i = Thread.currentThread().isInterrupted() ? 0 : awaitStopped(); i > 0; i--) {
        log.warn("{} - an interrupted task is still running; counted as discarded", name);
      }
    }
    closed.complete(null);
    return true;
  }

  /** Waits up to a second for the tasks given up on to end; returns how many have not. */
  private int awaitStopped() {
    lock.lock();
    try {
      await(INTERRUPT_GRACE_NANOS, () -> stopping == 0);
      return stopping;
    } finally {
      lock.unlock();
    }
  }

  /** With the lock: waits until {@code done}, or {@code nanos} pass, or an interrupt. */
  private void await(long nanos, BooleanSupplier done) {
    try {
      while (nanos > 0 && !done.getAsBoolean()) {
        nanos = ended.awaitNanos(nanos);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // kept: close() then discards at once and does not wait
    }
  }

  /** Moves the head of the line to the running tasks; with the lock and a permit held. */
  private Task takeHead() {
    Task task = line.poll();
    running.add(task);
    if (line.size() <= capacity - wakeBatch) {
      notFull.signalAll();
    } else if (hurried > 0) {
      notFull.signal();
    }
    return task;
  }

  private void start(Task task) {
    if (task != null) {
      Thread thread = threads.newThread(task);
      // The factory gives the system class loader (no inheritance); a normal thread would get the
      // one of the thread that built the queue, which matters in app servers.
      thread.setContextClassLoader(contextClassLoader);
      task.thread = thread;
      thread.start();
    }
  }

  /** Counts a task whose thread ends, then hands its permit to the head of the line, if any. */
  private void ended(Task task, Throwable failure) {
    Task next = null;
    lock.lock();
    try {
      if (!running.remove(task)) {
        stopping--; // given up on by close(), which counted it as discarded
      } else if (failure == null) {
        completed++;
      } else {
        failed++;
      }
      if (closing) {
        ended.signalAll();
      }
      if (line.isEmpty()) {
        permits.release(); // under the lock: a producer adding a task next sees the permit free
      } else {
        next = takeHead();
      }
    } finally {
      lock.unlock();
    }
    start(next);
  }

  /** An accepted task with the caller's MDC; close() interrupts its thread, once set. */
  private final class Task implements Runnable {
    private final BackgroundTask body;
    private final Map<String, String> mdc = MDC.getCopyOfContextMap();
    private volatile Thread thread;

    Task(BackgroundTask body) {
      this.body = body;
    }

    @Override
    public void run() {
      Throwable failure = null;
      try {
        if (!abandoned) {
          if (mdc != null) {
            MDC.setContextMap(mdc); // dies with this thread: the next task's does not inherit it
          }
          body.run();
        }
      } catch (Throwable e) {
        failure = e;
        if (!abandoned && e instanceof Exception) { // before ended(): close() waits for the log
          log.warn("{} - task failed", name, e);
        } else if (!abandoned) {
          log.error("{} - task failed", name, e);
        }
      } finally {
        ended(this, failure);
      }
    }
  }
}
