package dev.postbox.bench.lockfree;

import static dev.postbox.bench.lockfree.QueueWord.CLOSED;
import static dev.postbox.bench.lockfree.QueueWord.FREE;
import static dev.postbox.bench.lockfree.QueueWord.PRODUCER_IN_A_HURRY;
import static dev.postbox.bench.lockfree.QueueWord.PRODUCER_WAITS;
import static dev.postbox.bench.lockfree.QueueWord.waiting;

import dev.postbox.BackgroundQueue;
import dev.postbox.PostboxException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Where producers wait while a {@link BackgroundQueue} is full, and the rule for when a place freed
 * wakes them.
 *
 * <p>Thread-safe. Producers wait here under a {@link ReentrantLock}, never {@code synchronized},
 * because they may be virtual threads; a task that frees a place only takes the lock when the word
 * says a producer waits and the rule says to wake it.
 */
final class ProducerGate {
  /** How long a producer waits for a batch of free places before it asks for a single one. */
  private static final long LAZY_WAIT_NANOS = TimeUnit.MICROSECONDS.toNanos(200);

  private final QueueWord word;
  private final String name;
  private final int capacity;
  private final int wakeBatch; // free places that wake a producer waiting without hurry
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition notFull = lock.newCondition();

  ProducerGate(QueueWord word, BackgroundQueueSettings settings) {
    this.word = word;
    this.name = settings.name();
    this.capacity = settings.capacity();
    this.wakeBatch = Math.max(1, Math.min(256, capacity / 4));
  }

  /**
   * Waits until the queue may have room or is closed; false if it was still full at the deadline.
   *
   * <p>A busy queue makes room one task at a time, a few hundred nanoseconds apart, and waking a
   * producer costs more than that. So a producer first asks to be woken once {@code wakeBatch}
   * places are free, waiting at most {@link #LAZY_WAIT_NANOS}; if the queue is still full then, it
   * asks to be woken as soon as one place is.
   *
   * @throws PostboxException if the caller is interrupted (its interrupt status is kept)
   */
  boolean awaitRoom(boolean forever, long deadline) {
    lock.lock();
    try {
      boolean lazy = true;
      for (; ; ) {
        long s = word.get();
        if ((s & (CLOSED | FREE)) != 0 || waiting(s) < capacity) {
          return true;
        }
        long nanos = forever ? Long.MAX_VALUE : deadline - System.nanoTime();
        if (nanos <= 0) {
          return false;
        }
        // Set under the lock and only while full: whoever then makes room sees it and signals.
        long flags = lazy ? PRODUCER_WAITS : PRODUCER_WAITS | PRODUCER_IN_A_HURRY;
        if ((s & flags) != flags && !word.compareAndSet(s, s | flags)) {
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

  /**
   * Called by whoever has just taken a task out of the line, with the word as it was before: wakes
   * waiting producers if a batch of places is now free, or if one of them asked for a single place.
   */
  void placeFreed(long before) {
    if ((before & PRODUCER_WAITS) != 0) {
      boolean batchFree = waiting(before) - 1 <= capacity - wakeBatch;
      if (batchFree || (before & PRODUCER_IN_A_HURRY) != 0) {
        wake(batchFree);
      }
    }
  }

  /** Wakes every waiting producer, to see that the queue is closed. */
  void wakeAll() {
    lock.lock();
    try {
      notFull.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** Wakes one or all producers waiting for room; the flags stay up while any still wait. */
  private void wake(boolean all) {
    lock.lock();
    try {
      if (all) {
        notFull.signalAll();
      } else {
        notFull.signal();
      }
      if (!lock.hasWaiters(notFull)) {
        word.clearProducerFlags();
      }
    } finally {
      lock.unlock();
    }
  }
}
