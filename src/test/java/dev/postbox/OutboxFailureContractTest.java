package dev.postbox;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.postbox.testing.Await;
import dev.postbox.testing.RecordingTransport;
import dev.postbox.testing.ThreadFaults;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * How the dispatcher survives what goes wrong around a delivery: errors on its own threads, and a
 * send that hangs through an outage. Proven on every database.
 */
public abstract class OutboxFailureContractTest extends OutboxSuite {

  @Test
  void anErrorOnTheClaimThreadDoesNotStopClaiming() {
    // regression: the claim loop caught SQLException and RuntimeException only; an
    // OutOfMemoryError ended its thread and nothing added later was ever delivered
    ThreadFaults faults =
        new ThreadFaults(ds, "-claims", 1, () -> new OutOfMemoryError("injected"));
    RecordingTransport transport = new RecordingTransport();
    started(
        Dispatcher.builder(faults.dataSource())
            .outbox(outbox, transport)
            .instanceId(nextInstanceId())
            .pollInterval(Duration.ofMillis(20)));
    Await.until(WAIT, "the injected error", () -> faults.thrown() == 1);

    add(Message.of("t", "{}").eventId("after-the-error"));
    Await.until(WAIT, "delivery after the error", () -> transport.total.get() == 1 && rows() == 0);
    assertEquals(1, transport.count("after-the-error"));
  }

  @Test
  void anErrorOnTheOutcomeWriterDoesNotStopWritingOutcomes() {
    // regression: the writer died of an OutOfMemoryError; the failed delivery's outcome was never
    // written and its lease was renewed for the life of the process, blocking it everywhere
    add(Message.of("t", "{}").eventId("fails-once"));
    ThreadFaults faults =
        new ThreadFaults(ds, "-completions", 1, () -> new OutOfMemoryError("injected"));
    RecordingTransport transport =
        new RecordingTransport() {
          @Override
          public void send(Envelope envelope) throws Exception {
            super.send(envelope);
            if (envelope.attempt() == 1) {
              throw new java.io.IOException("first attempt fails");
            }
          }
        };
    started(
        Dispatcher.builder(faults.dataSource())
            .outbox(outbox, transport)
            .instanceId(nextInstanceId())
            .pollInterval(Duration.ofMillis(20))
            .backoff(Backoff.fixed(Duration.ofMillis(10))));

    Await.until(WAIT, "the retry delivered and recorded", () -> rows() == 0);
    assertEquals(1, faults.thrown(), "errors injected");
    assertEquals(2, transport.count("fails-once"), "attempts: the failed one and the retry");
  }

  @Test
  void aLaneWhoseWriterKeepsFailingWithErrorsStopsRenewingSoAnotherInstanceTakesOver() {
    // a writer that cannot go on (an Error on every try for a whole lease) reports its table as
    // stopped and stops renewing, instead of holding its rows leased for the life of the process
    add(Message.of("t", "{}").eventId("stranded"));
    ThreadFaults faults =
        new ThreadFaults(ds, "-completions", -1, () -> new NoClassDefFoundError("injected"));
    AtomicInteger stopped = new AtomicInteger();
    RecordingTransport first =
        new RecordingTransport() {
          @Override
          public void send(Envelope envelope) throws Exception {
            super.send(envelope);
            throw new java.io.IOException("fails: only the writer can record it");
          }
        };
    started(
        Dispatcher.builder(faults.dataSource())
            .outbox(outbox, first)
            .instanceId(nextInstanceId())
            .lease(Duration.ofSeconds(1))
            .pollInterval(Duration.ofMillis(20))
            .listener(
                new Listener() {
                  @Override
                  public void tableStopped(String table, Throwable cause) {
                    stopped.incrementAndGet();
                  }
                }));
    Await.until(WAIT, "the first instance's delivery", () -> first.total.get() == 1);

    RecordingTransport second = new RecordingTransport();
    started(dispatcher(second));
    Await.until(WAIT, "the takeover after one lease", () -> rows() == 0);
    assertEquals(1, stopped.get(), "tables reported stopped");
    assertEquals(1, second.count("stranded"), "delivered again by the other instance");
    assertEquals(1, first.total.get(), "the stopped instance sent nothing more");
  }

  @Test
  void aSendHangingThroughAnOutageDoesNotStopTheProbesAfterTheBrokerRecovers() {
    // regression: a probe was sent only while no delivery ran, so one send that never returned
    // kept the lane paused after the broker came back, with three slots free
    addNumbered("p-", 10);
    CountDownLatch hung = new CountDownLatch(1);
    CountDownLatch releaseHung = new CountDownLatch(1);
    AtomicBoolean brokerUp = new AtomicBoolean(false);
    AtomicInteger sends = new AtomicInteger();
    AtomicInteger outages = new AtomicInteger();
    RecordingTransport transport =
        new RecordingTransport() {
          @Override
          public void send(Envelope envelope) throws Exception {
            if (sends.incrementAndGet() == 1) {
              hung.countDown();
              releaseHung.await(); // no timeout of its own: only its return ends it
            } else if (!brokerUp.get()) {
              throw new java.io.IOException("broker down");
            }
            super.send(envelope);
          }
        };
    started(
        dispatcher(transport)
            .concurrency(4)
            .batchSize(10)
            .listener(
                new Listener() {
                  @Override
                  public void outageStarted(String table) {
                    outages.incrementAndGet();
                  }
                }));
    Await.until(WAIT, "an outage beside the hung send", () -> outages.get() == 1);
    brokerUp.set(true);

    Await.until(
        WAIT,
        "the other nine delivered while the hung send still hangs",
        () -> transport.deliveries.size() == 9 && rows() == 1);
    assertEquals(0, hung.getCount(), "the first send hung");
    releaseHung.countDown();
    Await.until(WAIT, "the hung send's row recorded", () -> rows() == 0);
    assertEquals(10, transport.deliveries.size(), "distinct delivered");
    assertEquals(0, transport.duplicated(), "duplicated");
  }
}
