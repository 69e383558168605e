package dev.postbox.internal.lane;

import dev.postbox.internal.sql.Claimed;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;

/**
 * The claimed deliveries of a {@link DeliverySlots} that wait for a slot, in claim order, and the
 * claim loops that wait for room among them: fewer than a batch of rows waiting. Not thread-safe:
 * every method runs under the lock of its slots.
 */
final class WaitingDeliveries<T> {
  private final int batchSize;
  private final Condition roomFreed; // fewer than a batch of rows wait
  private final ArrayDeque<List<Claimed<T>>> units = new ArrayDeque<>();
  private int rows; // the rows in units
  private int roomWaiters; // loops in awaitRoom

  /** Waits for room on a condition of {@code lock}, the slots' lock. */
  WaitingDeliveries(ReentrantLock lock, int batchSize) {
    this.roomFreed = lock.newCondition();
    this.batchSize = batchSize;
  }

  boolean isEmpty() {
    return units.isEmpty();
  }

  /** Queues the delivery of {@code unit} behind the others. */
  void add(List<Claimed<T>> unit) {
    units.add(unit);
    rows += unit.size();
  }

  /** The delivery that waited longest, no longer waiting; null if none waits. */
  List<Claimed<T>> poll() {
    List<Claimed<T>> unit = units.poll();
    if (unit != null) {
      rows -= unit.size();
      roomFreed();
    }
    return unit;
  }

  /** The rows of every waiting delivery, in order; none waits any more. */
  List<Claimed<T>> takeAll() {
    List<Claimed<T>> all = new ArrayList<>(rows);
    units.forEach(all::addAll);
    units.clear();
    rows = 0;
    roomFreed();
    return all;
  }

  /** See {@link DeliverySlots#awaitRoom}; returns false if {@code stopping}. */
  boolean awaitRoom(BooleanSupplier stopping) {
    roomWaiters++;
    try {
      while (rows >= batchSize && !stopping.getAsBoolean()) {
        roomFreed.awaitUninterruptibly();
      }
      return !stopping.getAsBoolean();
    } finally {
      roomWaiters--;
    }
  }

  /** Wakes every loop waiting for room: the lane is stopping. */
  void wakeAll() {
    roomFreed.signalAll();
  }

  private void roomFreed() {
    if (roomWaiters > 0 && rows < batchSize) {
      roomFreed.signalAll();
    }
  }
}
