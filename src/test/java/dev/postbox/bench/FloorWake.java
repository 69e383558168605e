package dev.postbox.bench;

import java.time.Duration;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/** What producers signal after commit so the loop claims at once: a flag and a condition. */
final class FloorWake {
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition signalled = lock.newCondition();
  private boolean requested;

  void signal() {
    lock.lock();
    try {
      requested = true;
      signalled.signalAll();
    } finally {
      lock.unlock();
    }
  }

  void await(Duration timeout) throws InterruptedException {
    lock.lock();
    try {
      long nanos = timeout.toNanos();
      while (!requested && nanos > 0) {
        nanos = signalled.awaitNanos(nanos);
      }
      requested = false;
    } finally {
      lock.unlock();
    }
  }
}
