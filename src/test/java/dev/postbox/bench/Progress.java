package dev.postbox.bench;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Counts finished rows (deleted or marked done) towards a target without polling the database: the
 * floor adds after each batch, Postbox through {@code Listener.delivered}. Optionally notes when
 * each window of rows was crossed, for the sustained drain.
 *
 * <p>Thread-safe.
 */
final class Progress {
  private final long target;
  private final long window;
  private final AtomicLong done = new AtomicLong();
  private final CountDownLatch finished = new CountDownLatch(1);
  private final long[] crossedAt;
  private final LinkedBlockingQueue<Integer> crossings = new LinkedBlockingQueue<>();

  Progress(long target) {
    this(target, 0);
  }

  /**
   * Counts towards {@code target}, noting the time at every multiple of {@code window} (0: none).
   */
  Progress(long target, long window) {
    this.target = target;
    this.window = window;
    this.crossedAt = new long[window > 0 ? (int) (target / window) + 1 : 0];
  }

  void add(long rows) {
    long before = done.getAndAdd(rows);
    long after = before + rows;
    if (window > 0) {
      long now = System.nanoTime();
      for (long k = before / window; k < after / window && k < crossedAt.length; k++) {
        crossedAt[(int) k] = now;
        crossings.add((int) k);
      }
    }
    if (before < target && after >= target) {
      finished.countDown();
    }
  }

  long done() {
    return done.get();
  }

  /** Waits until the target is reached; throws with the count reached if {@code timeout} passes. */
  void await(Duration timeout, String what) throws InterruptedException {
    if (!finished.await(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      throw new IllegalStateException(
          "timed out after " + timeout + " waiting for " + what + ": " + done() + " of " + target);
    }
  }

  /** The next window crossed (0 for the first), or -1 if none within {@code millis}. */
  int nextCrossing(long millis) throws InterruptedException {
    Integer k = crossings.poll(millis, TimeUnit.MILLISECONDS);
    return k == null ? -1 : k;
  }

  /**
   * {@link System#nanoTime()} when window {@code k} was crossed; valid after nextCrossing gave k.
   */
  long crossedAt(int k) {
    return crossedAt[k];
  }
}
