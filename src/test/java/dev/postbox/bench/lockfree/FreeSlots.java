package dev.postbox.bench.lockfree;

import java.util.concurrent.atomic.AtomicLong;

/**
 * A lock-free stack of the free indexes among {@code 0 .. size - 1}; it starts full.
 *
 * <p>Thread-safe. It does not check that an index pushed was popped before: the caller owns that.
 */
final class FreeSlots {
  // Below each index on the stack, the next one plus one (0: the bottom). Plain writes are
  // published by the compare-and-set of top that follows them.
  private final int[] below;
  // High 32 bits: a version bumped by every change, so a pop cannot succeed on a top that was
  // popped and pushed back in between (ABA). Low 32 bits: the index on top plus one, 0 when empty.
  private final AtomicLong top = new AtomicLong();

  /** A stack holding every index from 0 to {@code size - 1}. */
  FreeSlots(int size) {
    below = new int[size];
    for (int i = size - 1; i >= 0; i--) {
      push(i);
    }
  }

  /** Puts a free index back. */
  void push(int index) {
    long t;
    do {
      t = top.get();
      below[index] = (int) t;
    } while (!top.compareAndSet(t, next(t, index + 1)));
  }

  /** Takes a free index, or returns -1 if there is none at this moment. */
  int pop() {
    for (; ; ) {
      long t = top.get();
      int index = (int) t - 1;
      if (index < 0) {
        return -1;
      }
      if (top.compareAndSet(t, next(t, below[index]))) {
        return index;
      }
    }
  }

  private static long next(long top, int newTopPlusOne) {
    return ((top >>> 32) + 1) << 32 | (newTopPlusOne & 0xFFFFFFFFL);
  }
}
