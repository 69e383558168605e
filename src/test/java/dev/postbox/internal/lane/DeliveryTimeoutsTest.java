package dev.postbox.internal.lane;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The watchdog alone: who settles a delivery, what its timeout does, and when it wakes. */
class DeliveryTimeoutsTest {
  private static final Duration SOON = Duration.ofMillis(10);
  private static final Duration WAIT = Duration.ofSeconds(30);

  private final DeliveryTimeouts timeouts = new DeliveryTimeouts("test", Duration.ofSeconds(5), 4);
  private final CountDownLatch release = new CountDownLatch(1);

  DeliveryTimeoutsTest() {
    timeouts.start();
  }

  @AfterEach
  void stop() {
    release.countDown();
    timeouts.close();
  }

  @Test
  void aDeliveryWithoutTimeoutIsNotWatched() {
    assertSame(
        DeliveryTimeouts.NONE, timeouts.watch(null, System.nanoTime(), () -> {}, () -> "none"));
    assertTrue(DeliveryTimeouts.NONE.settle());
    assertTrue(DeliveryTimeouts.NONE.settle(), "settled by its delivery, every time");
  }

  @Test
  void aDeliverySettledBeforeItsTimeoutKeepsItsOutcomeAndIsNeverInterrupted() throws Exception {
    AtomicInteger timedOut = new AtomicInteger();
    AtomicBoolean settled = new AtomicBoolean();
    AtomicBoolean interrupted = new AtomicBoolean();
    Thread t =
        Thread.ofVirtual()
            .start(
                () -> {
                  DeliveryTimeouts.Watch w =
                      timeouts.watch(
                          Duration.ofHours(1),
                          System.nanoTime(),
                          timedOut::incrementAndGet,
                          () -> "d");
                  settled.set(w.settle());
                  interrupted.set(Thread.currentThread().isInterrupted());
                });
    assertTrue(t.join(WAIT));
    assertTrue(settled.get(), "settled by the delivery");
    assertFalse(interrupted.get(), "interrupted");
    timeouts.close();
    assertEquals(0, timedOut.get(), "timeouts");
  }

  @Test
  void aDeliveryPastItsTimeoutIsInterruptedItsTimeoutRunsOnceAndItsLateOutcomeIsRefused()
      throws Exception {
    AtomicInteger timedOut = new AtomicInteger();
    CountDownLatch timeoutRan = new CountDownLatch(1);
    AtomicInteger interrupts = new AtomicInteger();
    AtomicReference<Boolean> lateSettle = new AtomicReference<>();
    Thread t =
        Thread.ofVirtual()
            .start(
                () -> {
                  DeliveryTimeouts.Watch w =
                      timeouts.watch(
                          SOON,
                          System.nanoTime(),
                          () -> {
                            timedOut.incrementAndGet();
                            timeoutRan.countDown();
                          },
                          () -> "d");
                  blockIgnoringInterrupts(interrupts);
                  lateSettle.set(w.settle());
                });
    assertTrue(timeoutRan.await(WAIT.toSeconds(), TimeUnit.SECONDS), "the timeout ran");
    release.countDown();
    assertTrue(t.join(WAIT));
    assertEquals(1, timedOut.get(), "timeouts");
    assertTrue(interrupts.get() > 0, "the delivery's thread was interrupted");
    assertFalse(lateSettle.get(), "the late delivery settled it");
  }

  @Test
  void aSoonerDeadlineWakesTheWatchdogWhileItSleepsUntilALaterOne() throws Exception {
    CountDownLatch sleeping = new CountDownLatch(1);
    Thread later =
        Thread.ofVirtual()
            .start(
                () -> {
                  timeouts.watch(Duration.ofHours(1), System.nanoTime(), () -> {}, () -> "later");
                  sleeping.countDown();
                  blockIgnoringInterrupts(new AtomicInteger());
                });
    assertTrue(sleeping.await(WAIT.toSeconds(), TimeUnit.SECONDS));
    CountDownLatch soonerTimedOut = new CountDownLatch(1);
    Thread sooner =
        Thread.ofVirtual()
            .start(
                () -> {
                  timeouts.watch(
                      SOON, System.nanoTime(), soonerTimedOut::countDown, () -> "sooner");
                  blockIgnoringInterrupts(new AtomicInteger());
                });
    assertTrue(
        soonerTimedOut.await(WAIT.toSeconds(), TimeUnit.SECONDS),
        "the sooner deadline timed out while the later one was watched");
    release.countDown();
    assertTrue(later.join(WAIT));
    assertTrue(sooner.join(WAIT));
  }

  @Test
  void aTimeoutThatThrowsLeavesTheWatchdogRunningForTheNext() throws Exception {
    CountDownLatch second = new CountDownLatch(1);
    Thread first =
        Thread.ofVirtual()
            .start(
                () -> {
                  timeouts.watch(
                      SOON,
                      System.nanoTime(),
                      () -> {
                        throw new IllegalStateException("a bug");
                      },
                      () -> "first");
                  blockIgnoringInterrupts(new AtomicInteger());
                });
    Thread next =
        Thread.ofVirtual()
            .start(
                () -> {
                  timeouts.watch(SOON, System.nanoTime(), second::countDown, () -> "next");
                  blockIgnoringInterrupts(new AtomicInteger());
                });
    assertTrue(second.await(WAIT.toSeconds(), TimeUnit.SECONDS), "the next timeout ran");
    release.countDown();
    assertTrue(first.join(WAIT));
    assertTrue(next.join(WAIT));
  }

  private void blockIgnoringInterrupts(AtomicInteger interrupts) {
    while (true) {
      try {
        release.await();
        return;
      } catch (InterruptedException e) {
        interrupts.incrementAndGet();
      }
    }
  }
}
