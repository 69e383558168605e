package dev.postbox.internal.background;

import java.util.ArrayDeque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Semaphore;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * What a background queue holds, under one lock: the bounded line of tasks waiting for a permit (in
 * the order they were accepted), the tasks holding one, and the counts.
 *
 * <p>Thread-safe. Every method holds a {@link ReentrantLock} (never {@code synchronized}: callers
 * may be virtual threads) for a few field updates and waits only on its conditions. A task is moved
 * from the line to the running set, and out of it, under the lock, so whoever moves it counts it:
 * nothing is counted twice or lost.
 */
final class QueueState {
  /** How long a producer waits for a batch of free places before it asks for a single one. */
  private static final long LAZY_WAIT_NANOS = 200_000;

  private final int capacity;
  private final int wakeBatch; // free places that wake every producer waiting for room
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition notFull = lock.newCondition();
  private final Condition changed = lock.newCondition(); // for close(): a task ended
  private final ArrayDeque<QueuedTask> line = new ArrayDeque<>();
  private final Set<QueuedTask> running = new HashSet<>();
  private boolean closed;
  private int hurried; // producers waiting to be woken by a single free place
  private int stopping; // tasks given up on by close() whose threads have not ended yet
  private long submitted;
  private long completed;
  private long failed;
  private long discarded;

  QueueState(int capacity) {
    this.capacity = capacity;
    this.wakeBatch = Math.max(1, Math.min(256, capacity / 4));
  }

  /**
   * Adds a task to the line, waiting up to {@code nanos} ({@code Long.MAX_VALUE}: for ever) while
   * it is full.
   *
   * <p>A full, busy queue frees a place every few microseconds, and waking a producer costs more
   * than that. So a producer first waits to be woken by {@code wakeBatch} free places, for at most
   * {@link #LAZY_WAIT_NANOS}; if the line is still full then, it asks to be woken by the next one.
   */
  TaskQueue.Put add(QueuedTask task, long nanos) throws InterruptedException {
    lock.lock();
    try {
      for (boolean lazy = true; !closed && line.size() == capacity; lazy = false) {
        if (nanos <= 0) {
          return TaskQueue.Put.FULL;
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
      if (closed) {
        return TaskQueue.Put.CLOSED;
      }
      line.add(task);
      submitted++;
      return TaskQueue.Put.ACCEPTED;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Moves the head of the line to the running tasks if one of {@code permits} is free, taking it;
   * null if the line is empty or no permit is free.
   */
  QueuedTask next(Semaphore permits) {
    lock.lock();
    try {
      return line.isEmpty() || !permits.tryAcquire() ? null : takeHead();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Counts a task whose thread ends as completed or failed (unless {@code close()} gave up on it
   * and counted it as discarded: then its outcome is ignored), then hands its permit to the head of
   * the line and returns that task, now running; or, if the line is empty, gives the permit back to
   * {@code permits} and returns null.
   */
  QueuedTask ended(QueuedTask task, Throwable failure, Semaphore permits) {
    lock.lock();
    try {
      if (!running.remove(task)) {
        stopping--;
      } else if (failure == null) {
        completed++;
      } else {
        failed++;
      }
      if (closed) {
        changed.signalAll();
      }
      if (line.isEmpty()) {
        permits.release(); // under the lock: a producer adding a task next sees the permit free
        return null;
      }
      return takeHead();
    } finally {
      lock.unlock();
    }
  }

  private QueuedTask takeHead() {
    QueuedTask task = line.poll();
    running.add(task);
    if (line.size() <= capacity - wakeBatch) {
      notFull.signalAll();
    } else if (hurried > 0) {
      notFull.signal();
    }
    return task;
  }

  /** Refuses tasks from now on and wakes the producers waiting for room; false if it was. */
  boolean close() {
    lock.lock();
    try {
      boolean first = !closed;
      closed = true;
      notFull.signalAll();
      return first;
    } finally {
      lock.unlock();
    }
  }

  /** Waits until nothing is queued or running; false on timeout or interrupt. */
  boolean awaitIdle(long nanos) {
    lock.lock();
    try {
      while (!line.isEmpty() || !running.isEmpty()) {
        if (nanos <= 0) {
          return false;
        }
        nanos = changed.awaitNanos(nanos);
      }
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Drops the queued tasks and gives up on the running ones, counting both as discarded; returns
   * how many were queued, and the running tasks.
   */
  int discardAll(List<QueuedTask> given) {
    lock.lock();
    try {
      int queued = line.size();
      line.clear();
      given.addAll(running);
      running.clear();
      discarded += queued + given.size();
      stopping += given.size();
      return queued;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Waits up to {@code nanos} for the tasks given up on to end; returns how many have not (also
   * when interrupted, keeping the interrupt status).
   */
  int awaitStopped(long nanos) {
    lock.lock();
    try {
      while (stopping > 0 && nanos > 0) {
        nanos = changed.awaitNanos(nanos);
      }
      return stopping;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return stopping;
    } finally {
      lock.unlock();
    }
  }

  /** The counts now, all read at one moment. */
  TaskQueue.Counts counts() {
    lock.lock();
    try {
      return new TaskQueue.Counts(
          submitted, completed, failed, discarded, line.size(), running.size());
    } finally {
      lock.unlock();
    }
  }
}
