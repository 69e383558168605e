package dev.postbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postbox.testing.Await;
import dev.postbox.testing.RecordingTransport;
import dev.postbox.testing.Sql;
import dev.postbox.testing.ThreadFaults;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * What happens when a delivery or the dispatcher fails (retries after a backoff, parking, broker
 * outages and their probes, unreadable rows, errors on the dispatcher's own threads), proven on
 * every database.
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

  @Test
  void failedDeliveryIsRetriedAfterTheBackoffByTheDatabaseClock() {
    add(Message.of("t", "{}").eventId("retry-me"));
    List<Instant> attemptsAt = new CopyOnWriteArrayList<>();
    List<Integer> attemptNumbers = new CopyOnWriteArrayList<>();
    Transport failsOnce =
        envelope -> {
          attemptsAt.add(Sql.dbNow(ds, db));
          attemptNumbers.add(envelope.attempt());
          if (envelope.attempt() == 1) {
            throw new IllegalStateException("broker said no");
          }
        };
    started(dispatcher(failsOnce).backoff(Backoff.fixed(Duration.ofMillis(1500))));

    Await.until(WAIT, "the retry", () -> attemptsAt.size() == 2 && rows() == 0);
    assertEquals(List.of(1, 2), attemptNumbers);
    Duration gap = Duration.between(attemptsAt.get(0), attemptsAt.get(1));
    assertTrue(
        gap.compareTo(Duration.ofMillis(1500)) >= 0,
        "retried after " + gap + ", before the 1.5 s backoff");
  }

  @Test
  void transportOutageParksNothingAndEverythingIsDeliveredAfterRecovery() {
    List<Message> messages = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      messages.add(Message.of("t", "{}").eventId("o-" + i));
    }
    add(messages.toArray(Message[]::new));
    AtomicBoolean brokerUp = new AtomicBoolean(false);
    AtomicInteger failures = new AtomicInteger();
    AtomicInteger outages = new AtomicInteger();
    RecordingTransport transport =
        new RecordingTransport() {
          @Override
          public void send(Envelope envelope) throws Exception {
            if (!brokerUp.get()) {
              failures.incrementAndGet();
              throw new java.io.IOException("connection refused");
            }
            super.send(envelope);
          }
        };
    started(
        dispatcher(transport)
            .maxAttempts(2)
            .concurrency(4)
            .batchSize(10)
            .listener(
                new Listener() {
                  @Override
                  public void outageStarted(String table) {
                    outages.incrementAndGet();
                  }
                }));

    // 2 attempts × 10 ms backoff would park every message within milliseconds without outage
    // handling
    Await.until(
        WAIT,
        "the outage to be detected and probed",
        () -> outages.get() == 1 && failures.get() >= 10);
    assertEquals(
        0,
        Sql.count(ds, "SELECT COUNT(*) FROM postbox_outbox WHERE state = 2"),
        "parked during outage");
    brokerUp.set(true);

    Await.until(WAIT, "recovery", () -> transport.total.get() == 50 && rows() == 0);
    assertEquals(50, transport.deliveries.size());
    assertEquals(0, transport.duplicated());
  }

  @Test
  void outagePauseGrowsOnlyWhenTheProbeFailsNotForEveryDeliveryInFlight() {
    // regression: 16 in-flight failures each doubled the pause, so a short outage cost 30 s
    List<Message> messages = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      messages.add(Message.of("t", "{}").eventId("f-" + i));
    }
    add(messages.toArray(Message[]::new));
    CountDownLatch allInFlight = new CountDownLatch(16);
    AtomicBoolean brokerUp = new AtomicBoolean(false);
    AtomicInteger failed = new AtomicInteger();
    RecordingTransport transport =
        new RecordingTransport() {
          @Override
          public void send(Envelope envelope) throws Exception {
            if (!brokerUp.get()) {
              allInFlight.countDown();
              allInFlight.await();
              if (failed.incrementAndGet() == 16) {
                brokerUp.set(true); // back as soon as the last in-flight send has failed
              }
              throw new java.io.IOException("connection reset");
            }
            super.send(envelope);
          }
        };
    started(
        dispatcher(transport).concurrency(16).batchSize(20).pollInterval(Duration.ofMillis(50)));

    // with the pause doubled 13 times the first probe would wait the 30 s maximum
    Await.until(
        Duration.ofSeconds(15), "recovery", () -> transport.total.get() == 20 && rows() == 0);
    assertEquals(0, transport.duplicated());
  }

  @Test
  void probesAlternateEndsSoPoisonAtTheNewestEndCannotHoldBackAnOlderHealthyMessage()
      throws Exception {
    // ordered by key, a key's head is its oldest pending message, so poison heads can be newer
    // than every healthy one: probing from the newest end only walked through all of them first.
    // Here the healthy message has the lowest id but commits only after the outage began.
    Assumptions.assumeTrue(
        db.database() != Database.SQLITE, "SQLite has one writer: no open transaction to hold");
    List<String> calls = new CopyOnWriteArrayList<>();
    RecordingTransport transport =
        new RecordingTransport() {
          @Override
          public void send(Envelope envelope) throws Exception {
            calls.add(envelope.eventId());
            if (envelope.topic().equals("poison")) {
              throw new IllegalStateException("poison");
            }
            super.send(envelope);
          }
        };
    CountDownLatch outageStarted = new CountDownLatch(1);
    try (Connection held = ds.getConnection()) {
      held.setAutoCommit(false);
      assertTrue(outbox.add(held, Message.of("t", "{}").eventId("healthy")));
      List<Message> poison = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        poison.add(Message.of("poison", "{}").eventId("p-" + i));
      }
      add(poison.toArray(Message[]::new));
      started(
          dispatcher(transport)
              .concurrency(1)
              .batchSize(1)
              .pollInterval(Duration.ofMillis(200))
              .listener(
                  new Listener() {
                    @Override
                    public void outageStarted(String table) {
                      outageStarted.countDown();
                    }
                  }));
      Await.until(
          WAIT, "three poison failures taken for an outage", () -> outageStarted.getCount() == 0);
      held.commit();
    }
    int callsBefore = calls.size();
    Await.until(WAIT, "the healthy message", () -> transport.count("healthy") == 1);
    List<String> seen = List.copyOf(calls); // a snapshot: probes go on while the test reads
    List<String> between = seen.subList(callsBefore, seen.indexOf("healthy"));
    // the first probe takes the newest (poison), the second the oldest: the healthy message
    assertTrue(between.size() <= 1, "poison probed before the healthy message: " + between);
  }

  @Test
  void aFalseOutageFromPoisonIsProbedWithTheNewestMessageNotThePoison() {
    // regression: probes took the oldest due rows, i.e. the poison that looked like an outage,
    // with doubling pauses, so a healthy message committed meanwhile waited behind all of them
    List<Message> poison = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      poison.add(Message.of("poison", "{}").eventId("p-" + i));
    }
    add(poison.toArray(Message[]::new));
    CountDownLatch outageStarted = new CountDownLatch(1);
    List<String> calls = new CopyOnWriteArrayList<>();
    RecordingTransport transport =
        new RecordingTransport() {
          @Override
          public void send(Envelope envelope) throws Exception {
            calls.add(envelope.eventId());
            if (envelope.topic().equals("poison")) {
              throw new IllegalStateException("poison");
            }
            super.send(envelope);
          }
        };
    started(
        dispatcher(transport)
            .concurrency(1)
            .batchSize(1)
            .pollInterval(Duration.ofMillis(300))
            .listener(
                new Listener() {
                  @Override
                  public void outageStarted(String table) {
                    outageStarted.countDown();
                  }
                }));
    Await.until(
        WAIT, "three poison failures taken for an outage", () -> outageStarted.getCount() == 0);
    int callsBefore = calls.size();
    add(Message.of("t", "{}").eventId("healthy"));

    Await.until(WAIT, "the healthy message", () -> transport.count("healthy") == 1);
    List<String> seen = List.copyOf(calls); // a snapshot: probes go on while the test reads
    List<String> between = seen.subList(callsBefore, seen.indexOf("healthy"));
    // at most one probe can have been claimed before the healthy row was committed
    assertTrue(between.size() <= 1, "poison probed before the healthy message: " + between);
  }

  @Test
  void aProbeThatFailsIsNotRepeatedWhileOtherMessagesWait() {
    // regression: with the poison as the newest message and no traffic after it, every probe took
    // the poison again (pauses doubling to 30 s) while older healthy messages waited
    add(
        Message.of("t", "{}").eventId("h-0"),
        Message.of("t", "{}").eventId("h-1"),
        Message.of("t", "{}").eventId("h-2"),
        Message.of("poison", "{}").eventId("poison"));
    List<String> calls = new CopyOnWriteArrayList<>();
    Set<String> called = ConcurrentHashMap.newKeySet();
    RecordingTransport transport =
        new RecordingTransport() {
          @Override
          public void send(Envelope envelope) throws Exception {
            calls.add(envelope.eventId());
            // every first call fails, as when a broker drops its connections for a moment
            if (envelope.topic().equals("poison") || called.add(envelope.eventId())) {
              throw new java.io.IOException("connection reset");
            }
            super.send(envelope);
          }
        };
    started(dispatcher(transport).concurrency(1).batchSize(1).pollInterval(Duration.ofMillis(50)));

    Await.until(
        WAIT,
        "the healthy messages",
        () -> transport.count("h-0") + transport.count("h-1") + transport.count("h-2") == 3);
    // until the first healthy message is delivered (its second call) the lane is in the outage:
    // the poison may have failed once before it and been probed once, no more; after it, the
    // poison is retried as any failing message is, between the healthy ones
    List<String> seen = List.copyOf(calls);
    Set<String> healthyCalled = new HashSet<>();
    int firstDelivery = seen.size();
    for (int i = 0; i < seen.size() && firstDelivery == seen.size(); i++) {
      if (seen.get(i).startsWith("h-") && !healthyCalled.add(seen.get(i))) {
        firstDelivery = i;
      }
    }
    long poisonCalls = seen.subList(0, firstDelivery).stream().filter("poison"::equals).count();
    assertTrue(poisonCalls <= 2, "the poison was probed again and again: " + calls);
    assertEquals(0, transport.duplicated());
  }

  @Test
  void rowClaimedMoreOftenThanMaxAttemptsWithoutAnOutcomeIsParkedNotDeliveredAgain() {
    // regression: a message that crashes every instance that sends it was never parked
    add(Message.of("t", "{}").eventId("crashes-everyone"), Message.of("t", "{}").eventId("fine"));
    Sql.update(
        ds,
        "UPDATE postbox_outbox SET leased_by = 'crashed', attempts = 3, available_at = "
            + Sql.nowPlusMillis(db)
            + " WHERE event_id = 'crashes-everyone'",
        -1000L);
    RecordingTransport transport = new RecordingTransport();
    started(dispatcher(transport).maxAttempts(3));

    Await.until(
        WAIT,
        "parked",
        () -> Sql.count(ds, "SELECT COUNT(*) FROM postbox_outbox WHERE state = 2") == 1);
    Await.until(WAIT, "the healthy one", () -> transport.count("fine") == 1);
    assertEquals(0, transport.count("crashes-everyone"), "never delivered again");
    String error =
        (String)
            Sql.value(
                ds, "SELECT last_error FROM postbox_outbox WHERE event_id = 'crashes-everyone'");
    assertTrue(error.contains("without a recorded outcome"), error);
  }

  @Test
  void rowWhoseHeadersCannotBeReadIsParkedAndDoesNotBlockOthers() {
    // regression: one undecodable row failed every claim (or stranded its batch)
    add(
        Message.of("t", "{}").eventId("garbled"),
        Message.of("t", "{}").eventId("fine-1"),
        Message.of("t", "{}").eventId("fine-2"));
    Sql.update(ds, "UPDATE postbox_outbox SET headers = 'not json' WHERE event_id = 'garbled'");
    RecordingTransport transport = new RecordingTransport();
    started(dispatcher(transport));

    Await.until(
        WAIT,
        "others delivered, garbled parked",
        () ->
            transport.total.get() == 2
                && Sql.count(ds, "SELECT COUNT(*) FROM postbox_outbox WHERE state = 2") == 1
                && rows() == 1);
    assertEquals(1, rows());
    String error = (String) Sql.value(ds, "SELECT last_error FROM postbox_outbox");
    assertTrue(error.contains("could not be read"), error);
  }

  @Test
  void failureWhoseMessageHoldsControlCharactersIsRecorded() {
    // regression: a NUL in an exception message made PostgreSQL refuse every completion write
    add(Message.of("t", "{}").eventId("nul-error"));
    RecordingTransport transport =
        new RecordingTransport() {
          @Override
          public void send(Envelope envelope) throws Exception {
            if (envelope.attempt() == 1) {
              throw new IllegalStateException("broker said \u0000 and \u0007");
            }
            super.send(envelope);
          }
        };
    started(dispatcher(transport));

    Await.until(WAIT, "the retry", () -> transport.total.get() == 1 && rows() == 0);
    assertEquals(2, transport.envelopes.peek().attempt());
  }
}
