package dev.postbox.internal.lane;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postbox.internal.sql.Claimed;
import dev.postbox.testing.Await;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** What the delivery slots do with a probe that waits for a slot when an outage hands rows back. */
class DeliverySlotsOutageTest {
  private static final Duration WAIT = Duration.ofSeconds(30);

  @Test
  void aProbeHandedBackFromTheSlotQueueEndsSoTheNextProbeCanGo() {
    // regression: a probe queued behind a hung delivery was handed back when that delivery ended,
    // but the outage still took it for the probe in flight, so no probe went ever again
    Outage outage = new Outage(TestLanes.settings(), "t");
    OutcomeQueue outcomes = new OutcomeQueue(Thread.currentThread(), () -> false, () -> 0);
    CountDownLatch hungSendReturns = new CountDownLatch(1);
    AtomicReference<DeliverySlots<String>> holder = new AtomicReference<>();
    DeliverySlots<String> slots =
        new DeliverySlots<>(
            "t",
            1,
            10,
            outcomes,
            outage,
            () -> false,
            rows ->
                () -> {
                  if (rows.get(0).id() == 1) {
                    awaitQuietly(hungSendReturns);
                  }
                  holder.get().finished(Thread.currentThread());
                });
    holder.set(slots);

    slots.start(List.of(List.of(row(1))), true); // a send that hangs, started while healthy
    try {
      for (long failed = 100; failed < 100 + Outage.THRESHOLD; failed++) {
        outage.failedAndCounts(failed, false);
      }
      assertTrue(outage.active(), "outage");
      Await.until(WAIT, "the first probe's pause", () -> outage.claimLimit(10) == 1);
      outage.claimed(List.of(row(2)));
      slots.start(List.of(List.of(row(2))), true); // the probe: queued behind the hung send
      assertTrue(outage.probing(), "probing");
    } finally {
      hungSendReturns.countDown(); // its end hands the waiting probe back, unsent
    }
    Await.until(WAIT, "the slot freed", () -> slots.running() == 0);
    Outcome handedBack = outcomes.take();
    assertEquals(Outcome.Kind.RELEASED, handedBack.kind());
    assertEquals(2, handedBack.row().id());
    assertFalse(outage.probing(), "still waiting for a probe that was handed back");
    Await.until(WAIT, "the next probe's turn", () -> outage.claimLimit(10) == 1);
  }

  private static Claimed<String> row(long id) {
    return new Claimed<>(id, 1, 1, 0, "e" + id, "t", "x");
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
