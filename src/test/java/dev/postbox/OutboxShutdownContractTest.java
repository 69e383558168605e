package dev.postbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postbox.testing.Await;
import dev.postbox.testing.Sql;
import dev.postbox.testing.Threads;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** What {@link Dispatcher#close()} leaves behind, proven on every database. */
public abstract class OutboxShutdownContractTest extends OutboxSuite {

  @Test
  void aCloseInterruptedWhileWaitingStillInterruptsHandsBackAndStopsEveryThread() throws Exception {
    // regression: an interrupt during close() skipped interrupting the hung delivery, writing its
    // hand-back and stopping the outcome writer and the lease renewer, which ran on for good
    add(Message.of("t", "{}").eventId("hung"));
    CountDownLatch sending = new CountDownLatch(1);
    AtomicBoolean interrupted = new AtomicBoolean();
    Transport hanging =
        envelope -> {
          sending.countDown();
          try {
            new CountDownLatch(1).await(); // a broker that never answers
          } catch (InterruptedException e) {
            interrupted.set(true);
            throw e;
          }
        };
    Dispatcher d = started(dispatcher(hanging).shutdownTimeout(Duration.ofSeconds(30)));
    assertTrue(sending.await(60, TimeUnit.SECONDS));

    Thread closing = Thread.ofVirtual().start(d::close);
    Await.until(
        WAIT,
        "close() waiting for the delivery",
        () ->
            closing.getState() == Thread.State.WAITING
                || closing.getState() == Thread.State.TIMED_WAITING);
    closing.interrupt();
    closing.join(Duration.ofSeconds(20));

    assertTrue(!closing.isAlive(), "close() returned");
    assertTrue(interrupted.get(), "the hung delivery was interrupted");
    assertEquals(
        1L,
        Sql.count(
            ds, "SELECT COUNT(*) FROM postbox_outbox WHERE leased_by IS NULL AND attempts = 0"),
        "the row handed back");
    Await.until(
        WAIT,
        "every thread of the dispatcher to end",
        () -> Threads.named(d.instanceId() + "-").isEmpty());
    assertEquals(List.of(), Threads.named(d.instanceId() + "-"));
  }
}
