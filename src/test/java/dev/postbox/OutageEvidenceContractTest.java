package dev.postbox;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.postbox.testing.Await;
import dev.postbox.testing.RecordingTransport;
import dev.postbox.testing.Sql;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Which failures are evidence of a broker outage: a message's first failure is, whatever its
 * attempt number; a message that failed before failing again is not (poison). Proven on every
 * database, since the difference is read from the row ({@code last_error}) by each claim.
 */
public abstract class OutageEvidenceContractTest extends OutboxSuite {
  private static final int MESSAGES = 6;

  @Test
  void messagesClaimedAgainAfterACrashThatFailTogetherAreTakenForAnOutageNotParked() {
    // regression: after a crash the re-claimed rows (attempt 2, never failed) filled the slots when
    // the broker stopped; their failures were not evidence, so they were counted until parked
    addNumbered("crashed-", MESSAGES);
    leasedByADeadInstance();
    AtomicBoolean brokerUp = new AtomicBoolean(false);
    AtomicInteger outages = new AtomicInteger();
    RecordingTransport transport = failingUntil(brokerUp, new ConcurrentHashMap<>());
    started(dispatcher(transport).maxAttempts(5).concurrency(4).listener(counting(outages)));

    assertOneOutageAndNothingParked("the outage", outages);
    brokerUp.set(true);

    assertEveryMessageDeliveredOnce(transport);
    assertEquals(1, outages.get());
  }

  @Test
  void messagesRefundedInOneOutageAreStillEvidenceInTheNext() {
    // regression: a refund wrote last_error, so a message re-claimed after a crash that was
    // refunded in one outage looked as if it had failed, and was counted until parked in the next
    addNumbered("again-", MESSAGES);
    leasedByADeadInstance();
    AtomicBoolean brokerUp = new AtomicBoolean(false);
    RecordingTransport transport = failingUntil(brokerUp, new ConcurrentHashMap<>());
    // all six sending at once: the first two failures count, the others are refunded
    AtomicInteger firstOutages = new AtomicInteger();
    Dispatcher first =
        started(
            dispatcher(transport).maxAttempts(8).concurrency(6).listener(counting(firstOutages)));
    Await.until(WAIT, "the first outage", () -> firstOutages.get() == 1 || parked() > 0);
    first.close();
    assertEquals(0, parked(), "parked in the first outage");

    AtomicInteger outages = new AtomicInteger();
    started(dispatcher(transport).maxAttempts(8).concurrency(6).listener(counting(outages)));
    assertOneOutageAndNothingParked("the second outage", outages);
    brokerUp.set(true);

    assertEveryMessageDeliveredOnce(transport);
  }

  @Test
  void messagesThatFailedBeforeAndFailAgainTogetherAreParkedNotTakenForAnOutage() {
    // the poison rule the first test must not break: six retries failing together are counted
    addNumbered("failed-", MESSAGES);
    Sql.update(
        ds,
        "UPDATE postbox_outbox SET attempts = 1, claims = 1,"
            + " last_error = 'java.io.IOException: earlier'");
    Map<String, Integer> calls = new ConcurrentHashMap<>();
    AtomicInteger outages = new AtomicInteger();
    started(
        dispatcher(failingUntil(new AtomicBoolean(false), calls))
            .maxAttempts(3)
            .concurrency(4)
            .listener(counting(outages)));

    Await.until(WAIT, "every message parked", () -> parked() == MESSAGES);
    assertEquals(0, outages.get(), "outages");
    for (int i = 0; i < MESSAGES; i++) {
      assertEquals(2, calls.get("failed-" + i), "calls of failed-" + i + " (attempts 2 and 3)");
    }
  }

  @Test
  void replayedMessagesFailingOnTheirFirstAttemptAreEvidenceThoughTheyFailedBefore() {
    // a replay resets attempts but keeps last_error: the first attempt after it is still evidence
    addNumbered("replayed-", MESSAGES);
    Sql.update(ds, "UPDATE postbox_outbox SET last_error = 'java.io.IOException: earlier'");
    AtomicBoolean brokerUp = new AtomicBoolean(false);
    AtomicInteger outages = new AtomicInteger();
    RecordingTransport transport = failingUntil(brokerUp, new ConcurrentHashMap<>());
    started(dispatcher(transport).maxAttempts(2).concurrency(6).listener(counting(outages)));

    Await.until(WAIT, "an outage or a parked message", () -> outages.get() == 1 || parked() > 0);
    assertEquals(0, parked(), "parked during the outage");
    brokerUp.set(true);
    assertEveryMessageDeliveredOnce(transport);
    assertEquals(1, outages.get(), "outages");
  }

  /** Every row leased by an instance that died: attempted once, its lease ran out a second ago. */
  private void leasedByADeadInstance() {
    Sql.update(
        ds,
        "UPDATE postbox_outbox SET leased_by = 'crashed', attempts = 1, claims = 1, available_at = "
            + Sql.nowPlusMillis(db),
        -1000L);
  }

  /** Waits for an outage or a parked message: there must be the outage, and nothing parked. */
  private void assertOneOutageAndNothingParked(String outage, AtomicInteger outages) {
    Await.until(WAIT, outage + " or a parked message", () -> outages.get() == 1 || parked() > 0);
    assertEquals(0, parked(), "parked during " + outage);
    assertEquals(1, outages.get(), "outages");
  }

  private void assertEveryMessageDeliveredOnce(RecordingTransport transport) {
    Await.until(WAIT, "recovery", () -> transport.total.get() >= MESSAGES && rows() == 0);
    assertEquals(MESSAGES, transport.deliveries.size());
    assertEquals(0, transport.duplicated());
  }

  private static RecordingTransport failingUntil(AtomicBoolean up, Map<String, Integer> calls) {
    return new RecordingTransport() {
      @Override
      public void send(Envelope envelope) throws Exception {
        calls.merge(envelope.eventId(), 1, Integer::sum);
        if (!up.get()) {
          throw new java.io.IOException("connection refused");
        }
        super.send(envelope);
      }
    };
  }

  private static Listener counting(AtomicInteger outages) {
    return new Listener() {
      @Override
      public void outageStarted(String table) {
        outages.incrementAndGet();
      }
    };
  }
}
