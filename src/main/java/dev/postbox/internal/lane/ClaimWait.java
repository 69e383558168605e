package dev.postbox.internal.lane;

import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;

/**
 * A claim loop's wait between claims, cut short by {@link #wakeUp}, and whether the loop will claim
 * again soon (the outcome writer may then leave successes for its claim to carry). Built before the
 * loop, so the parts that wake it or ask about it need no loop. Thread-safe.
 */
final class ClaimWait {
  private final BooleanSupplier stopping;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition woken = lock.newCondition();
  private boolean wakeRequested; // guarded by lock
  // will claim again soon (not waiting long): it may carry the writer's successes
  private volatile boolean claiming;

  ClaimWait(BooleanSupplier stopping) {
    this.stopping = stopping;
  }

  /** True while the loop will claim again soon: the writer may leave successes for it. */
  boolean claimingSoon() {
    return claiming;
  }

  void claiming(boolean claiming) {
    this.claiming = claiming;
  }

  /** Cuts the current wait short: new rows were committed, or the lane is stopping. */
  void wakeUp() {
    lock.lock();
    try {
      wakeRequested = true;
      woken.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** Waits up to {@code nanos}, until woken or the lane stops; then the loop claims soon. */
  void await(long nanos) {
    lock.lock();
    try {
      while (!wakeRequested && !stopping.getAsBoolean() && nanos > 0) {
        nanos = woken.awaitNanos(nanos);
      }
      wakeRequested = false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      lock.unlock();
      claiming = !stopping.getAsBoolean();
    }
  }
}
