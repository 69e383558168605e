package dev.postbox.bench.lockfree;

import dev.postbox.BackgroundQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The state of a {@link BackgroundQueue} in one atomic word: its free permits, the number of tasks
 * in line, and the flags "a producer waits for room", "... and wants it now" and "closed".
 *
 * <p>Thread-safe and lock-free: every change is one compare-and-set, so any thread may read and
 * change it at any time. The static helpers decode a value read from it.
 */
final class QueueWord {
  // The queue in one word, so that "take a free permit or get in line" and "pass my permit to the
  // head of the line or give it back" are each one compare-and-set, without a lock. Bits 0-15:
  // free permits (workers <= 10,000); bits 16-39: tasks in line (capacity <= 1,000,000); then
  // flags for "a producer waits for room", "... and wants it now" and "closed". A free permit
  // therefore means an empty line, until close() starts discarding.
  static final long FREE_ONE = 1L;
  static final long FREE = 0xFFFFL;
  static final long WAITING_ONE = 1L << 16;
  static final long WAITING = 0xFF_FFFFL << 16;
  static final long PRODUCER_WAITS = 1L << 40;
  static final long PRODUCER_IN_A_HURRY = 1L << 41;
  static final long CLOSED = 1L << 42;

  private final int workers;
  private final AtomicLong word;

  /** A word with every one of {@code workers} permits free, nobody in line and no flag set. */
  QueueWord(int workers) {
    this.workers = workers;
    this.word = new AtomicLong(workers * FREE_ONE);
  }

  long get() {
    return word.get();
  }

  boolean compareAndSet(long expected, long next) {
    return word.compareAndSet(expected, next);
  }

  /** Sets the closed flag if no one has; returns the word as it was before. */
  long close() {
    long s = word.get();
    while ((s & CLOSED) == 0 && !word.compareAndSet(s, s | CLOSED)) {
      s = word.get();
    }
    return s;
  }

  /** Empties the count of the line in one step; returns the word as it was before. */
  long takeWholeLine() {
    long s = word.get();
    while (!word.compareAndSet(s, s & ~WAITING)) {
      s = word.get();
    }
    return s;
  }

  /** Lowers both "a producer waits" flags. */
  void clearProducerFlags() {
    long s;
    do {
      s = word.get();
    } while (!word.compareAndSet(s, s & ~(PRODUCER_WAITS | PRODUCER_IN_A_HURRY)));
  }

  /** Whether {@code s} has nothing in line and every permit free. */
  boolean isIdle(long s) {
    return (s & WAITING) == 0 && free(s) == workers;
  }

  /** Permits in use (tasks starting, running or just finished) in {@code s}. */
  int running(long s) {
    return workers - free(s);
  }

  static int free(long s) {
    return (int) (s & FREE);
  }

  static int waiting(long s) {
    return (int) ((s & WAITING) >>> 16);
  }

  static boolean isClosed(long s) {
    return (s & CLOSED) != 0;
  }
}
