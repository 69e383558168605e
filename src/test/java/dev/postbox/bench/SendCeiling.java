package dev.postbox.bench;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;

/**
 * The most 1 ms sends the JDK alone gets through on this machine: {@code n} sends, each on its own
 * virtual thread (as Postbox runs each delivery), at most {@code concurrency} at once, no database
 * and no queue. It is what W1's 1 ms sends can reach at best, measured beside them, since the
 * threads' wake-ups after their 1 ms cost time and CPU of their own.
 */
final class SendCeiling {
  private SendCeiling() {}

  /** Sends per second of {@code n} 1 ms sends, {@code concurrency} at once. */
  static double rate(int n, int concurrency) throws InterruptedException {
    Semaphore permits = new Semaphore(concurrency);
    CountDownLatch done = new CountDownLatch(n);
    Thread.Builder threads = Thread.ofVirtual().name("ceiling-send");
    long start = System.nanoTime();
    for (int i = 0; i < n; i++) {
      permits.acquire();
      threads.start(
          () -> {
            Drain.slowSend();
            permits.release();
            done.countDown();
          });
    }
    done.await();
    return n / ((System.nanoTime() - start) / 1e9);
  }
}
