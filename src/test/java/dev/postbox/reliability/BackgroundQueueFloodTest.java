package dev.postbox.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postbox.BackgroundQueue;
import dev.postbox.PostboxException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Scenario 10: producers flood a {@link BackgroundQueue} far faster than its workers run, then it
 * is closed under load. Every accepted task is accounted for exactly once (submitted = completed +
 * failed + discarded) and the heap stays bounded by the queue's capacity, not by the flood.
 */
class BackgroundQueueFloodTest {
  private static final int CAPACITY = 1000;
  private static final int TASK_BYTES = 4096;

  @Test
  void floodThenCloseAccountsForEveryTaskWithBoundedHeap() throws Exception {
    flood(Profile.SHORT);
  }

  @Test
  @Tag("long")
  void longFloodThenCloseAccountsForEveryTaskWithBoundedHeap() throws Exception {
    flood(Profile.LONG);
  }

  private void flood(Profile profile) throws Exception {
    long baseline = liveHeap();
    BackgroundQueue queue =
        BackgroundQueue.builder()
            .name("flood")
            .workers(16)
            .capacity(CAPACITY)
            .drainTimeout(Duration.ofMillis(100))
            .build();
    AtomicBoolean stop = new AtomicBoolean();
    AtomicLong accepted = new AtomicLong();
    AtomicLong offerTimeouts = new AtomicLong();
    AtomicLong refused = new AtomicLong();
    AtomicLong ranOk = new AtomicLong();
    AtomicLong threw = new AtomicLong();
    List<Thread> producers = new ArrayList<>();
    for (int t = 0; t < 8; t++) {
      boolean blocking = t % 2 == 0;
      SplittableRandom random = new SplittableRandom(t);
      producers.add(
          Thread.ofPlatform()
              .name("flood-producer-" + t)
              .start(
                  () -> {
                    while (!stop.get()) {
                      // each task holds 4 KiB: an unbounded queue would show in the heap at once
                      byte[] ballast = new byte[TASK_BYTES];
                      boolean fails = random.nextInt(2000) == 0; // each failure is logged at WARN
                      long workNanos = random.nextLong(1_000_000, 5_000_000);
                      Runnable body =
                          () -> {
                            LockSupport.parkNanos(workNanos);
                            if (Thread.currentThread().isInterrupted()) {
                              return;
                            }
                            if (fails) {
                              threw.incrementAndGet();
                              throw new IllegalStateException("task failed " + ballast.length);
                            }
                            ranOk.incrementAndGet();
                          };
                      try {
                        if (blocking) {
                          queue.enqueue(body::run);
                          accepted.incrementAndGet();
                        } else if (queue.offer(body::run, Duration.ofMillis(1))) {
                          accepted.incrementAndGet();
                        } else {
                          offerTimeouts.incrementAndGet();
                        }
                      } catch (PostboxException closed) {
                        refused.incrementAndGet();
                        return;
                      }
                    }
                  }));
    }
    long floodMillis = profile.pick(5_000L, 60_000L);
    long peak = 0;
    long end = System.nanoTime() + floodMillis * 1_000_000;
    while (System.nanoTime() < end) {
      Thread.sleep(500);
      peak = Math.max(peak, liveHeap());
    }
    long closeStart = System.nanoTime();
    queue.close(); // under load: producers are still pushing
    long closeMillis = (System.nanoTime() - closeStart) / 1_000_000;
    stop.set(true);
    for (Thread p : producers) {
      p.join(10_000);
    }
    BackgroundQueue.Stats stats = queue.stats();
    long mib = 1024 * 1024;
    Reporting.Line line =
        new Reporting.Line("background-flood", "none")
            .put("flood_ms", floodMillis)
            .put("submitted", stats.submitted())
            .put("completed", stats.completed())
            .put("failed", stats.failed())
            .put("discarded", stats.discarded())
            .put("accepted_by_producers", accepted.get())
            .put("offer_timeouts", offerTimeouts.get())
            .put("refused_after_close", refused.get())
            .put("close_ms", closeMillis)
            .put("heap_growth_peak_mib", Math.max(0, peak - baseline) / mib);
    line.print(profile.label());
    assertEquals(
        stats.submitted(),
        stats.completed() + stats.failed() + stats.discarded(),
        "every task accounted for once: " + line);
    assertEquals(accepted.get(), stats.submitted(), "accepted vs submitted: " + line);
    assertTrue(stats.completed() <= ranOk.get(), "completed without running: " + line);
    assertTrue(stats.failed() <= threw.get(), "failed without throwing: " + line);
    assertEquals(0, stats.queued(), line.toString());
    assertTrue(offerTimeouts.get() > 0, "the flood never filled the queue: " + line);
    assertTrue(refused.get() > 0, "nobody was refused after close: " + line);
    assertTrue(
        peak - baseline < 64 * mib, "heap grew with the flood, not with the capacity: " + line);
    assertTrue(closeMillis < 10_000, "close took too long: " + line);
  }

  /** Heap in use after a full collection: live objects, roughly. */
  private static long liveHeap() {
    Runtime rt = Runtime.getRuntime();
    System.gc();
    return rt.totalMemory() - rt.freeMemory();
  }
}
