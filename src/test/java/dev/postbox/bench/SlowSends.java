package dev.postbox.bench;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * W1's 1 ms sends: the send itself (a wait for a broker, no CPU), how long the sends of the drain
 * being measured really took, and {@link #ceiling}, the most of them the JDK alone gets through on
 * this machine. Thread-safe: any delivery thread sends; one drain is measured at a time.
 */
final class SlowSends {
  static final String CEILING = "1 ms sends, the JDK alone";
  private static final LongAdder SENDS = new LongAdder();
  private static final LongAdder NANOS = new LongAdder();

  private SlowSends() {}

  /** A send that waits 1 ms for its broker: I/O-bound, no CPU. */
  static void send() {
    long started = System.nanoTime();
    long until = started + 1_000_000;
    for (long left = 1_000_000; left > 0; left = until - System.nanoTime()) {
      LockSupport.parkNanos(left);
    }
    NANOS.add(System.nanoTime() - started);
    SENDS.increment();
  }

  /** Starts counting the sends of a new drain. */
  static void reset() {
    SENDS.reset();
    NANOS.reset();
  }

  /** The mean real time of a send since {@link #reset}, in ns; NaN if none. */
  static double meanNanos() {
    long sends = SENDS.sum();
    return sends == 0 ? Double.NaN : NANOS.sum() / (double) sends;
  }

  /**
   * Sends per second of {@code n} 1 ms sends, each on its own virtual thread (as Postbox runs each
   * delivery), at most {@code concurrency} at once, no database and no queue: what W1's 1 ms sends
   * can reach at best, measured beside them, since the threads' wake-ups after their 1 ms cost time
   * and CPU of their own.
   */
  static double ceiling(int n, int concurrency) throws InterruptedException {
    Semaphore permits = new Semaphore(concurrency);
    CountDownLatch done = new CountDownLatch(n);
    Thread.Builder threads = Thread.ofVirtual().name("ceiling-send");
    long start = System.nanoTime();
    for (int i = 0; i < n; i++) {
      permits.acquire();
      threads.start(
          () -> {
            send();
            permits.release();
            done.countDown();
          });
    }
    done.await();
    return n / ((System.nanoTime() - start) / 1e9);
  }
}
