package dev.postbox.internal.lane;

import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;

/**
 * Whether a lane's claims come back full: then rows are waiting beyond what one claim takes, and
 * the lane's extra claim loops claim too, so that several claims are in flight; a claim that comes
 * back short sends them back to sleep. The lane's main claim loop alone polls an idle table, so an
 * idle lane costs what it cost with one loop. Thread-safe.
 */
final class Backlog {
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition full = lock.newCondition();
  private volatile boolean waiting; // written under lock: the last claim came back full

  /** Records how a claim came back: full wakes the extra loops, short sends them to sleep. */
  void claimed(boolean cameBackFull) {
    if (cameBackFull == waiting) {
      return; // the common case costs no lock
    }
    lock.lock();
    try {
      waiting = cameBackFull;
      if (cameBackFull) {
        full.signalAll();
      }
    } finally {
      lock.unlock();
    }
  }

  /** True while the last claim came back full. */
  boolean full() {
    return waiting;
  }

  /** Waits until a claim came back full; false if {@code stopping} holds first. */
  boolean awaitFull(BooleanSupplier stopping) {
    lock.lock();
    try {
      while (!waiting && !stopping.getAsBoolean()) {
        full.awaitUninterruptibly();
      }
      return !stopping.getAsBoolean();
    } finally {
      lock.unlock();
    }
  }

  /** Wakes every waiting loop: the lane is stopping. */
  void wakeAll() {
    lock.lock();
    try {
      full.signalAll();
    } finally {
      lock.unlock();
    }
  }
}
