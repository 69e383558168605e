package dev.postbox.internal;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Tells when a lane is idle: its main claim loop claimed nothing while it held no row and nothing
 * else happened on the lane (no other claim started, no outcome written), so at that claim's moment
 * no row was claimable and none was in flight. Rows waiting for a retry or a delay, parked rows and
 * rows behind a parked key are not claimable, so they do not keep a lane busy. Thread-safe: the
 * claim loops and the writer report here; any thread waits.
 */
final class IdleWatch {
  private static final long WAKE_EVERY_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

  private final AtomicLong activity = new AtomicLong();
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition proved = lock.newCondition();
  private long lastProof; // the activity count at the start of the latest proving claim; lock

  /** Something that may change what is claimable happened: returns the new activity count. */
  long touched() {
    return activity.incrementAndGet();
  }

  /** The activity count: unchanged between two reads means nothing happened in between. */
  long activity() {
    return activity.get();
  }

  /** The main claim loop's empty claim, started at activity count {@code at}, proved it idle. */
  void proved(long at) {
    lock.lock();
    try {
      lastProof = Math.max(lastProof, at);
      proved.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Waits until a claim that started after the activity count was {@code seen} proves the lane idle
   * (a claim started earlier may have missed a commit made since), or until the deadline; runs
   * {@code wakeUp} at once and then every 10 ms so that a claim loop in a long poll wait claims
   * again. False on the deadline.
   */
  boolean awaitProofAfter(long seen, long deadlineNanos, Runnable wakeUp)
      throws InterruptedException {
    while (true) {
      wakeUp.run();
      lock.lock();
      try {
        if (lastProof > seen) {
          return true;
        }
        long left = deadlineNanos - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        proved.awaitNanos(Math.min(left, WAKE_EVERY_NANOS));
        if (lastProof > seen) {
          return true;
        }
      } finally {
        lock.unlock();
      }
    }
  }
}
