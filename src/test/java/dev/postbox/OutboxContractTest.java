package dev.postbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postbox.testing.Await;
import dev.postbox.testing.BatchRecordingTransport;
import dev.postbox.testing.CarryingClaimFailure;
import dev.postbox.testing.LostAcknowledgement;
import dev.postbox.testing.RecordingTransport;
import dev.postbox.testing.Sql;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The outbox's behaviour, proven on every database: subclasses only say which database. Runs the
 * shipped {@code sql/<db>/schema.sql}.
 */
public abstract class OutboxContractTest extends DatabaseTest {
  private static final Duration WAIT = Duration.ofSeconds(60);

  protected final Outbox outbox = Outbox.builder().build();

  /** A fast-polling dispatcher for tests; register it so it is closed after the test. */
  protected Dispatcher.Builder dispatcher(Transport transport) {
    return Dispatcher.builder(ds)
        .outbox(outbox, transport)
        .instanceId(nextInstanceId())
        .pollInterval(Duration.ofMillis(20))
        .backoff(Backoff.fixed(Duration.ofMillis(10)))
        .shutdownTimeout(Duration.ofSeconds(10));
  }

  protected void add(Message... messages) {
    Sql.commit(ds, c -> outbox.addAll(c, List.of(messages)));
  }

  protected long rows() {
    return Sql.count(ds, "SELECT COUNT(*) FROM postbox_outbox");
  }

  @Test
  void committedMessageIsDeliveredWithEverythingAdded() {
    add(
        Message.of("order.placed", "{\"id\":42}")
            .eventId("order-42:v1")
            .key("order-42")
            .header("traceparent", "00-abc-def-01"));
    RecordingTransport transport = new RecordingTransport();
    started(dispatcher(transport));

    Await.until(WAIT, "delivery and deletion", () -> transport.total.get() == 1 && rows() == 0);
    Envelope e = transport.envelopes.peek();
    assertEquals("order-42:v1", e.eventId());
    assertEquals("order.placed", e.topic());
    assertEquals("order-42", e.key());
    assertEquals("{\"id\":42}", e.payload());
    assertEquals(Map.of("traceparent", "00-abc-def-01"), e.headers());
    assertEquals(1, e.attempt());
    assertNotNull(e.createdAt());
  }

  @Test
  void rolledBackMessageIsNeverDelivered() {
    Sql.rollback(
        ds,
        c -> assertTrue(outbox.add(c, Message.of("order.placed", "{}").eventId("rolled-back"))));
    add(Message.of("order.placed", "{}").eventId("committed"));
    RecordingTransport transport = new RecordingTransport();
    started(dispatcher(transport));

    Await.until(
        WAIT, "the committed message", () -> transport.count("committed") == 1 && rows() == 0);
    assertEquals(0, transport.count("rolled-back"));
    assertEquals(1, transport.total.get());
  }

  @Test
  void aClaimFailingWhileItCarriesFinishedRowsLeavesThemToTheWriterAndNothingIsRedelivered() {
    CarryingClaimFailure failure = new CarryingClaimFailure(ds, 1);
    RecordingTransport transport = new RecordingTransport();
    Dispatcher d =
        started(
            Dispatcher.builder(failure.dataSource())
                .outbox(outbox, transport)
                .instanceId(nextInstanceId())
                .pollInterval(Duration.ofMillis(20))
                .shutdownTimeout(Duration.ofSeconds(10)));
    int n = 20;
    for (int i = 0; i < n; i++) {
      String id = "trickle-" + i;
      add(Message.of("t", "{}").eventId(id)); // one at a time: the next claim carries its success
      d.wakeUp();
      Await.until(WAIT, id, () -> transport.count(id) == 1);
    }

    Await.until(WAIT, "every delivered row deleted", () -> rows() == 0);
    assertEquals(1, failure.injected(), "claims failed while carrying finished rows");
    assertEquals(n, transport.deliveries.size(), "distinct delivered");
    assertEquals(n, transport.total.get(), "deliveries");
    assertEquals(0, transport.duplicated(), "duplicated");
  }

  @Test
  void anInstanceIdWithQuotesBackslashesAndAnEmojiLeasesAndFinishesItsRows() {
    String instance = "it's \"odd\" \\ ?; -- \uD83D\uDE80 " + nextInstanceId();
    List<Object> leasedBy = new CopyOnWriteArrayList<>();
    AtomicInteger leaseLost = new AtomicInteger();
    Transport transport =
        envelope ->
            leasedBy.add(
                Sql.value(
                    ds,
                    "SELECT leased_by FROM postbox_outbox WHERE event_id = ?",
                    envelope.eventId()));
    Dispatcher d =
        started(
            dispatcher(transport)
                .instanceId(instance)
                .listener(
                    new Listener() {
                      @Override
                      public void leaseLost(String table, int count) {
                        leaseLost.addAndGet(count);
                      }
                    }));
    int n = 5;
    for (int i = 0; i < n; i++) {
      add(Message.of("t", "{}").eventId("odd-" + i)); // one at a time: claims carry the finishes
      d.wakeUp();
      int delivered = i + 1;
      Await.until(WAIT, "odd-" + i, () -> leasedBy.size() == delivered);
    }

    Await.until(WAIT, "every delivered row deleted", () -> rows() == 0);
    assertEquals(List.of(instance, instance, instance, instance, instance), leasedBy);
    assertEquals(0, leaseLost.get(), "leases reported lost");
  }

  @Test
  void threeDispatchersDeliverTenThousandMessagesExactlyOnce() {
    int n = 10_000;
    for (int batch = 0; batch < n / 1000; batch++) {
      List<Message> messages = new ArrayList<>();
      for (int i = 0; i < 1000; i++) {
        messages.add(
            Message.of("load", "{\"n\":" + (batch * 1000 + i) + "}")
                .eventId("m-" + (batch * 1000 + i)));
      }
      Sql.commit(ds, c -> assertEquals(1000, outbox.addAll(c, messages)));
    }
    RecordingTransport transport = new RecordingTransport();
    for (int i = 0; i < 3; i++) {
      started(dispatcher(transport).batchSize(50).concurrency(8).lease(Duration.ofSeconds(30)));
    }

    Await.until(
        Duration.ofMinutes(3), "all delivered", () -> transport.total.get() >= n && rows() == 0);
    assertEquals(n, transport.deliveries.size(), "distinct delivered");
    assertEquals(n, transport.total.get(), "deliveries");
    assertEquals(0, transport.duplicated(), "duplicated");
    assertEquals(0, rows(), "left in the table");
  }

  @Test
  void expiredLeaseOfACrashedInstanceIsTakenOver() {
    add(Message.of("t", "{}").eventId("orphan"));
    // a crashed instance claimed it: attempt 1, leased for 1.5 s more by the database clock
    Sql.update(
        ds,
        "UPDATE postbox_outbox SET leased_by = 'crashed', attempts = 1, available_at = "
            + Sql.nowPlusMillis(db)
            + " WHERE event_id = 'orphan'",
        1500L);
    Instant expiry = Sql.dbNow(ds, db).plusMillis(1500);
    List<Instant> deliveredAt = new CopyOnWriteArrayList<>();
    RecordingTransport transport =
        new RecordingTransport() {
          @Override
          public void send(Envelope envelope) throws Exception {
            deliveredAt.add(Sql.dbNow(ds, db));
            super.send(envelope);
          }
        };
    started(dispatcher(transport));

    Await.until(WAIT, "takeover", () -> transport.total.get() == 1 && rows() == 0);
    assertEquals(2, transport.envelopes.peek().attempt(), "attempt after the crashed one");
    assertFalse(
        deliveredAt.get(0).isBefore(expiry.minusMillis(50)),
        "taken over at " + deliveredAt.get(0) + ", before the lease expired at " + expiry);
  }

  @Test
  void aRetriedHandBackWhoseFirstTryCommittedLeavesTheNewerClaimOfTheSameInstanceAlone()
      throws Exception {
    // regression: outcomes were fenced by (leased_by, attempts), and a hand-back sets attempts
    // back, so the probe's new claim of a handed-back row had the old fence value; the writer's
    // retry of a hand-back whose COMMIT had gone through un-leased it mid-send: sent twice
    List<Message> messages = new ArrayList<>();
    for (int i = 1; i <= 10; i++) {
      messages.add(Message.of("t", "{}").eventId("h-" + i));
    }
    add(messages.toArray(Message[]::new));
    LostAcknowledgement lostAck = new LostAcknowledgement(ds, sql -> sql.contains("attempts - 1"));
    AtomicInteger leaseLost = new AtomicInteger();
    RecordingTransport transport =
        new RecordingTransport() {
          @Override
          public void send(Envelope envelope) throws Exception {
            String id = envelope.eventId();
            if (List.of("h-1", "h-2", "h-3").contains(id) && envelope.attempt() == 1) {
              throw new java.io.IOException("broker down"); // three first attempts: an outage
            }
            if (id.equals("h-10") && count(id) == 0) { // the probe: newest due row
              lostAck.beforeRetry.countDown(); // the writer retries the hand-back meanwhile
              assertTrue(lostAck.retried.await(60, TimeUnit.SECONDS), "the hand-back retried");
            }
            super.send(envelope);
          }
        };
    started(
        Dispatcher.builder(lostAck.dataSource())
            .outbox(outbox, transport)
            .instanceId(nextInstanceId())
            .concurrency(1)
            .batchSize(10)
            .pollInterval(Duration.ofMillis(20))
            .backoff(Backoff.fixed(Duration.ofMillis(10)))
            .listener(
                new Listener() {
                  @Override
                  public void leaseLost(String table, int count) {
                    leaseLost.addAndGet(count);
                  }
                }));

    Await.until(WAIT, "all delivered", () -> transport.deliveries.size() == 10 && rows() == 0);
    assertTrue(lostAck.injected(), "the hand-back's acknowledgement was lost");
    assertEquals(1, transport.count("h-10"), "the probe's row sent");
    assertEquals(0, transport.duplicated(), "duplicated");
    assertEquals(0, leaseLost.get(), "leases reported lost");
  }

  @Test
  void aStaleFailureOfAReplayedRowLeavesItsNewClaimLeasedAndRenewed() throws Exception {
    // regression: replay resets attempts, so the same instance's new claim of a replayed row had
    // the fence of its stale delivery, whose failure then un-leased the new claim mid-send; and
    // the stale outcome removed the new claim from the renewed rows (equal by value)
    add(Message.of("t", "{}").eventId("stale"));
    CountDownLatch firstSending = new CountDownLatch(1);
    CountDownLatch failFirst = new CountDownLatch(1);
    CountDownLatch secondSending = new CountDownLatch(1);
    CountDownLatch finishSecond = new CountDownLatch(1);
    AtomicInteger sends = new AtomicInteger();
    AtomicInteger leaseLost = new AtomicInteger();
    Transport transport =
        envelope -> {
          int n = sends.incrementAndGet();
          if (n == 1) {
            firstSending.countDown();
            failFirst.await();
            throw new java.io.IOException("stale delivery failed");
          }
          if (n == 2) {
            secondSending.countDown();
            finishSecond.await();
          }
        };
    Dispatcher d =
        started(
            dispatcher(transport)
                .concurrency(2)
                .lease(Duration.ofSeconds(1))
                .listener(
                    new Listener() {
                      @Override
                      public void leaseLost(String table, int count) {
                        leaseLost.addAndGet(count);
                      }
                    }));
    assertTrue(firstSending.await(60, TimeUnit.SECONDS));
    // meanwhile another instance took the row over and parked it, and an operator replayed it
    Sql.update(
        ds,
        "UPDATE postbox_outbox SET state = 2, leased_by = NULL, attempts = 1"
            + " WHERE event_id = 'stale'");
    Sql.commit(ds, c -> assertTrue(outbox.replay(c, "stale")));
    d.wakeUp();
    assertTrue(secondSending.await(60, TimeUnit.SECONDS), "claimed again after the replay");
    failFirst.countDown();
    Await.until(
        WAIT,
        "the stale failure rejected, or the row sent again",
        () -> leaseLost.get() == 1 || sends.get() > 2);
    assertEquals(2, sends.get(), "sends while the new claim is sending");

    // the new claim keeps its lease while it sends: renewed past twice the lease
    Instant renewedPast = Sql.dbNow(ds, db).plusMillis(2000);
    Await.until(WAIT, "two leases to pass", () -> Sql.dbNow(ds, db).isAfter(renewedPast));
    assertEquals(
        d.instanceId(), Sql.value(ds, "SELECT leased_by FROM postbox_outbox"), "still leased");
    finishSecond.countDown();

    Await.until(WAIT, "the new claim's success", () -> rows() == 0);
    assertEquals(2, sends.get(), "sends: the stale one and the new claim's, no third");
    assertEquals(1, leaseLost.get(), "only the stale outcome was rejected");
  }

  @Test
  void tablesOfSchemaOneUpgradeWithTheShippedScriptAndKeepTheirRows() {
    String folder = db.sqlFolder().getFileName().toString();
    db.resetSchema(java.nio.file.Path.of("src/test/resources/schema-v1", folder + ".sql"));
    add(Message.of("t", "{}").eventId("before-upgrade"));
    RecordingTransport transport = new RecordingTransport();
    assertThrows(PostboxException.class, () -> dispatcher(transport).build().start());

    db.runScript(db.sqlFolder().resolve("upgrade-1-to-2.sql"));
    started(dispatcher(transport));
    Await.until(WAIT, "the row added before the upgrade", () -> rows() == 0);
    assertEquals(1, transport.count("before-upgrade"));
  }

  @Test
  void completionOfAnOwnerThatLostItsLeaseIsRejected() throws Exception {
    add(Message.of("t", "{}").eventId("contested"));
    CountDownLatch sending = new CountDownLatch(1);
    CountDownLatch proceed = new CountDownLatch(1);
    AtomicInteger leaseLost = new AtomicInteger();
    Transport paused =
        envelope -> {
          sending.countDown();
          proceed.await();
        };
    started(
        dispatcher(paused)
            .listener(
                new Listener() {
                  @Override
                  public void leaseLost(String table, int count) {
                    leaseLost.addAndGet(count);
                  }
                }));
    assertTrue(sending.await(60, TimeUnit.SECONDS));
    // meanwhile the lease expired and another instance claimed the row (attempt 2)
    Sql.update(
        ds,
        "UPDATE postbox_outbox SET leased_by = 'new-owner', attempts = 2 WHERE event_id = 'contested'");
    proceed.countDown();

    Await.until(WAIT, "the stale completion", () -> leaseLost.get() == 1);
    assertEquals(1, rows(), "the new owner's row was not deleted");
    assertEquals("new-owner", Sql.value(ds, "SELECT leased_by FROM postbox_outbox"));
    assertEquals(2L, Sql.count(ds, "SELECT attempts FROM postbox_outbox"));
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
  void poisonMessageIsParkedAfterExactlyMaxAttemptsThenReplayedAndDiscarded() throws Exception {
    add(
        Message.of("poison", "{}").eventId("poison-1"),
        Message.of("poison", "{}").eventId("poison-2"),
        Message.of("healthy", "{}").eventId("healthy-1"));
    AtomicBoolean cured = new AtomicBoolean();
    RecordingTransport transport =
        new RecordingTransport() {
          @Override
          public void send(Envelope envelope) throws Exception {
            super.send(envelope);
            if (envelope.topic().equals("poison") && !cured.get()) {
              throw new IllegalArgumentException("cannot serialize " + envelope.eventId());
            }
          }
        };
    AtomicInteger parkedEvents = new AtomicInteger();
    started(
        dispatcher(transport)
            .maxAttempts(3)
            .listener(
                new Listener() {
                  @Override
                  public void parked(Delivery delivery, String reason) {
                    parkedEvents.incrementAndGet();
                  }
                }));

    Await.until(WAIT, "two parked", () -> parkedEvents.get() == 2);
    assertEquals(3, transport.count("poison-1"), "attempts of poison-1");
    assertEquals(3, transport.count("poison-2"), "attempts of poison-2");
    assertEquals(1, transport.count("healthy-1"));
    try (Connection c = ds.getConnection()) {
      List<Parked> parked = outbox.parked(c, 10);
      assertEquals(List.of("poison-1", "poison-2"), parked.stream().map(Parked::ref).toList());
      assertEquals(3, parked.get(0).attempts());
      assertTrue(
          parked
              .get(0)
              .lastError()
              .startsWith("java.lang.IllegalArgumentException: cannot serialize poison-1"),
          parked.get(0).lastError());
      QueueStats stats = outbox.stats(c);
      assertEquals(0, stats.pending());
      assertEquals(2, stats.parked());

      cured.set(true);
      assertTrue(outbox.replay(c, "poison-1"));
      assertFalse(outbox.replay(c, "no-such-event"));
      assertTrue(outbox.discard(c, "poison-2"));
    }
    Await.until(WAIT, "replayed delivery", () -> transport.count("poison-1") == 4 && rows() == 0);
    assertEquals(3, transport.count("poison-2"), "discarded, never sent again");
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
  void aBatchTransportGetsEachClaimWholeInTheOrderAddedAndEveryMessageOnce() {
    List<Message> messages = new ArrayList<>();
    for (int i = 0; i < 250; i++) {
      messages.add(Message.of("t", "{}").eventId(String.format("b-%03d", i)));
    }
    add(messages.toArray(Message[]::new));
    BatchRecordingTransport transport = new BatchRecordingTransport();
    started(dispatcher(transport).batchSize(100).concurrency(2));

    Await.until(WAIT, "all delivered", () -> transport.total.get() == 250 && rows() == 0);
    assertEquals(0, transport.singleSends.get(), "envelopes sent one by one");
    assertEquals(250, transport.deliveries.size(), "distinct delivered");
    assertEquals(0, transport.duplicated(), "duplicated");
    assertEquals(
        250, transport.batches.stream().mapToInt(List::size).sum(), "envelopes in batches");
    assertTrue(transport.batches.size() >= 3, "batches: " + transport.batches.size());
    for (List<Envelope> batch : transport.batches) {
      assertTrue(batch.size() <= 100, "batch of " + batch.size());
      List<String> ids = batch.stream().map(Envelope::eventId).toList();
      assertEquals(ids.stream().sorted().toList(), ids, "in the order added within a batch");
    }
  }

  @Test
  void aBatchSendExceptionFailsOnlyTheEnvelopesItNames() throws Exception {
    List<Message> messages = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      messages.add(Message.of("t", "{}").eventId("p-" + i));
    }
    add(messages.toArray(Message[]::new));
    // more than Outage.THRESHOLD: were they taken as outage evidence, an outage would start
    Set<String> unroutable = Set.of("p-1", "p-3", "p-5", "p-7");
    BatchRecordingTransport transport =
        new BatchRecordingTransport() {
          @Override
          public void sendBatch(List<Envelope> batch) throws Exception {
            batches.add(List.copyOf(batch));
            BatchSendException failures = new BatchSendException();
            for (Envelope e : batch) {
              if (unroutable.contains(e.eventId())) {
                failures.fail(e, new IllegalStateException("no route for " + e.eventId()));
              } else {
                send(e);
              }
            }
            if (!failures.failures().isEmpty()) {
              throw failures;
            }
          }
        };
    AtomicInteger outages = new AtomicInteger();
    AtomicInteger parkedEvents = new AtomicInteger();
    started(
        dispatcher(transport)
            .maxAttempts(2)
            .listener(
                new Listener() {
                  @Override
                  public void outageStarted(String table) {
                    outages.incrementAndGet();
                  }

                  @Override
                  public void parked(Delivery delivery, String reason) {
                    parkedEvents.incrementAndGet();
                  }
                }));

    Await.until(WAIT, "four parked, six deleted", () -> parkedEvents.get() == 4 && rows() == 4);
    assertEquals(6, transport.total.get(), "sent");
    assertEquals(6, transport.deliveries.size(), "distinct sent");
    assertEquals(0, transport.count("p-3"));
    assertEquals(0, outages.get(), "outages");
    try (Connection c = ds.getConnection()) {
      List<Parked> parked = outbox.parked(c, 10);
      assertEquals(List.of("p-1", "p-3", "p-5", "p-7"), parked.stream().map(Parked::ref).toList());
      assertEquals(2, parked.get(0).attempts());
      assertTrue(
          parked.get(0).lastError().startsWith("java.lang.IllegalStateException: no route for p-1"),
          parked.get(0).lastError());
    }
  }

  @Test
  void aBatchThatThrowsIsRetriedWholeAndNothingIsLost() {
    List<Message> messages = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      messages.add(Message.of("t", "{}").eventId("w-" + i));
    }
    add(messages.toArray(Message[]::new));
    AtomicInteger calls = new AtomicInteger();
    BatchRecordingTransport transport =
        new BatchRecordingTransport() {
          @Override
          public void sendBatch(List<Envelope> batch) throws Exception {
            int call = calls.incrementAndGet();
            if (call == 1) {
              throw new java.io.IOException("connection refused");
            }
            if (call == 2) {
              throw new BatchSendException(); // names no envelope: the whole batch failed
            }
            super.sendBatch(batch);
          }
        };
    started(dispatcher(transport).maxAttempts(3));

    Await.until(WAIT, "all delivered", () -> transport.total.get() == 20 && rows() == 0);
    assertEquals(20, transport.deliveries.size(), "distinct sent");
    assertEquals(0, transport.duplicated(), "duplicated");
    assertTrue(calls.get() >= 3, "calls: " + calls.get());
  }

  @Test
  void closeInterruptsABatchStillSendingAfterTheTimeoutAndHandsEveryRowBack() throws Exception {
    List<Message> messages = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      messages.add(Message.of("t", "{}").eventId("s-" + i));
    }
    add(messages.toArray(Message[]::new));
    CountDownLatch sending = new CountDownLatch(1);
    CountDownLatch never = new CountDownLatch(1);
    BatchRecordingTransport stuck =
        new BatchRecordingTransport() {
          @Override
          public void sendBatch(List<Envelope> batch) throws Exception {
            sending.countDown();
            never.await(); // a broker that does not answer: only the interrupt ends this
          }
        };
    Dispatcher d = started(dispatcher(stuck).batchSize(10).shutdownTimeout(Duration.ofMillis(200)));
    assertTrue(sending.await(60, TimeUnit.SECONDS));
    d.close();

    try (Connection c = ds.getConnection()) {
      QueueStats stats = outbox.stats(c);
      assertEquals(5, stats.due(), "handed back, due at once");
      assertEquals(0, stats.leased());
      assertEquals(0, stats.parked());
    }
    assertEquals(
        5L, Sql.count(ds, "SELECT COUNT(*) FROM postbox_outbox WHERE attempts = 0"), "refunded");
    BatchRecordingTransport next = new BatchRecordingTransport();
    started(dispatcher(next));
    Await.until(WAIT, "the next instance sends them", () -> next.total.get() == 5 && rows() == 0);
    assertEquals(0, next.duplicated());
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
    int lastHealthyCall = 0;
    for (int i = 0; i < calls.size(); i++) {
      lastHealthyCall = calls.get(i).startsWith("h-") ? i : lastHealthyCall;
    }
    long poisonCalls = calls.subList(0, lastHealthyCall).stream().filter("poison"::equals).count();
    assertTrue(poisonCalls <= 2, "the poison was probed again and again: " + calls);
    assertEquals(0, transport.duplicated());
  }

  private static final InheritableThreadLocal<String> CONTEXT = new InheritableThreadLocal<>();

  @Test
  void noInheritableThreadLocalPassesFromOneDeliveryToTheNext() {
    // each delivery thread is started by the one before it; user context must not ride along
    List<Message> messages = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      messages.add(Message.of("t", "{}").eventId("ctx-" + i));
    }
    add(messages.toArray(Message[]::new));
    List<String> seen = new CopyOnWriteArrayList<>();
    RecordingTransport transport =
        new RecordingTransport() {
          @Override
          public void send(Envelope envelope) throws Exception {
            seen.add(String.valueOf(CONTEXT.get()));
            CONTEXT.set("tenant-of-" + envelope.eventId());
            super.send(envelope);
          }
        };
    started(dispatcher(transport).concurrency(1).batchSize(20));

    Await.until(WAIT, "all delivered", () -> transport.total.get() == 20);
    assertEquals(java.util.Collections.nCopies(20, "null"), seen);
  }

  @Test
  void duplicateEventIdIsANoOpThatDoesNotAbortTheTransaction() {
    Sql.commit(
        ds,
        c -> {
          assertTrue(outbox.add(c, Message.of("t", "{\"v\":1}").eventId("dup")));
          assertFalse(outbox.add(c, Message.of("t", "{\"v\":2}").eventId("dup")));
          // the transaction is still usable: this add and the commit succeed
          assertTrue(outbox.add(c, Message.of("t", "{}").eventId("after-dup")));
        });
    Sql.commit(
        ds,
        c -> {
          assertFalse(outbox.add(c, Message.of("t", "{}").eventId("dup")));
          assertEquals(
              2,
              outbox.addAll(
                  c,
                  List.of(
                      Message.of("t", "{}").eventId("new-1"),
                      Message.of("t", "{}").eventId("after-dup"),
                      Message.of("t", "{}").eventId("new-2"))));
        });
    assertEquals(4, rows());
    assertEquals(
        "{\"v\":1}", Sql.value(ds, "SELECT payload FROM postbox_outbox WHERE event_id = 'dup'"));
  }

  @Test
  void generatedEventIdsAreUniqueAndTimeOrdered() {
    Sql.commit(ds, c -> outbox.addAll(c, List.of(Message.of("t", "a"), Message.of("t", "b"))));
    List<String> ids = new ArrayList<>();
    try (Connection c = ds.getConnection();
        var rs =
            c.createStatement().executeQuery("SELECT event_id FROM postbox_outbox ORDER BY id")) {
      while (rs.next()) {
        ids.add(rs.getString(1));
      }
    } catch (java.sql.SQLException e) {
      throw new IllegalStateException(e);
    }
    assertEquals(2, ids.size());
    assertTrue(
        ids.get(0).matches("[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"),
        ids.get(0));
    assertTrue(ids.get(0).substring(0, 13).compareTo(ids.get(1).substring(0, 13)) <= 0);
  }

  @Test
  void autoCommitConnectionIsRefusedUnlessAllowed() throws Exception {
    try (Connection c = ds.getConnection()) {
      c.setAutoCommit(true);
      PostboxException e =
          assertThrows(PostboxException.class, () -> outbox.add(c, Message.of("t", "{}")));
      assertTrue(e.getMessage().contains("auto-commit"), e.getMessage());
      assertEquals(0, rows());
      assertTrue(Outbox.builder().allowAutoCommit(true).build().add(c, Message.of("t", "{}")));
      assertEquals(1, rows());
    }
  }

  @Test
  void closeHandsBackRowsThatWereClaimedButNotStarted() throws Exception {
    List<Message> messages = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      messages.add(Message.of("t", "{}").eventId("c-" + i));
    }
    add(messages.toArray(Message[]::new));
    CountDownLatch firstStarted = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger sent = new AtomicInteger();
    Transport blocking =
        envelope -> {
          sent.incrementAndGet();
          firstStarted.countDown();
          release.await();
        };
    Dispatcher d = started(dispatcher(blocking).concurrency(1).batchSize(10));
    assertTrue(firstStarted.await(60, TimeUnit.SECONDS));
    assertEquals(
        10L, Sql.count(ds, "SELECT COUNT(*) FROM postbox_outbox WHERE leased_by IS NOT NULL"));

    Thread closing = Thread.ofVirtual().start(d::close);
    Await.until(
        WAIT,
        "9 rows handed back",
        () ->
            Sql.count(
                    ds,
                    "SELECT COUNT(*) FROM postbox_outbox WHERE leased_by IS NULL AND attempts = 0")
                == 9);
    release.countDown();
    closing.join();

    assertEquals(1, sent.get(), "only the started row was sent");
    assertEquals(9, rows(), "the first was completed, nine are left");
    try (Connection c = ds.getConnection()) {
      QueueStats stats = outbox.stats(c);
      assertEquals(9, stats.due(), "handed-back rows are due at once");
      assertEquals(0, stats.leased());
    }
    RecordingTransport next = new RecordingTransport();
    started(dispatcher(next));
    Await.until(
        WAIT, "the other instance delivers them", () -> next.total.get() == 9 && rows() == 0);
    assertEquals(0, next.duplicated());
  }

  @Test
  void statsCountWithoutClaiming() throws Exception {
    add(
        Message.of("t", "{}").eventId("due-1"), Message.of("t", "{}").eventId("due-2"),
        Message.of("t", "{}").eventId("leased"), Message.of("t", "{}").eventId("parked"));
    Sql.update(
        ds,
        "UPDATE postbox_outbox SET leased_by = 'other', available_at = "
            + Sql.nowPlusMillis(db)
            + " WHERE event_id = 'leased'",
        60_000L);
    Sql.update(ds, "UPDATE postbox_outbox SET state = 2 WHERE event_id = 'parked'");
    try (Connection c = ds.getConnection()) {
      QueueStats stats = outbox.stats(c);
      assertEquals(3, stats.pending());
      assertEquals(2, stats.due());
      assertEquals(1, stats.leased());
      assertEquals(1, stats.parked());
      assertFalse(stats.oldestPendingAge().isNegative());
      assertEquals(3, outbox.countPending(c));
    }
    assertEquals(
        1L,
        Sql.count(ds, "SELECT COUNT(*) FROM postbox_outbox WHERE leased_by IS NOT NULL"),
        "nothing claimed");
  }

  @Test
  void invalidMessagesAreRejectedNamingFieldAndLimitAndNothingIsWritten() {
    Map<String, Runnable> cases = new ConcurrentHashMap<>();
    cases.put("topic", () -> Message.of(null, "{}"));
    cases.put("topic ", () -> Message.of("", "{}"));
    cases.put("topic  ", () -> Message.of("x".repeat(201), "{}"));
    cases.put("topic   ", () -> Message.of("has space", "{}"));
    cases.put("topic    ", () -> Message.of(".starts-with-dot", "{}"));
    cases.put("eventId", () -> Message.of("t", "{}").eventId(""));
    cases.put("eventId ", () -> Message.of("t", "{}").eventId("x".repeat(129)));
    cases.put("eventId  ", () -> Message.of("t", "{}").eventId("line\nbreak"));
    cases.put("key", () -> Message.of("t", "{}").key("k".repeat(256)));
    cases.put("header name", () -> Message.of("t", "{}").header("", "v"));
    cases.put("header 'h'", () -> Message.of("t", "{}").header("h", "v".repeat(8193)));
    cases.put("header 'h' ", () -> Message.of("t", "{}").header("h", "a\r\nb"));
    cases.put("payload", () -> Message.of("t", null));
    cases.put("message", () -> outbox.add(null, null));
    cases.put("message ", () -> outbox.addAll(null, Arrays.asList((Message) null)));
    for (Map.Entry<String, Runnable> c : cases.entrySet()) {
      InvalidValueException e =
          assertThrows(InvalidValueException.class, c.getValue()::run, c.getKey());
      assertEquals(c.getKey().strip(), e.field(), e.getMessage());
    }
    Message many = Message.of("t", "{}");
    for (int i = 0; i < 64; i++) {
      many = many.header("h" + i, "v");
    }
    Message full = many;
    assertEquals(
        "headers",
        assertThrows(InvalidValueException.class, () -> full.header("h64", "v")).field());

    Outbox small = Outbox.builder().payloadLimit(10).build();
    InvalidValueException tooBig =
        assertThrows(
            InvalidValueException.class,
            () ->
                Sql.commit(
                    ds,
                    c ->
                        small.addAll(
                            c, List.of(Message.of("t", "ok"), Message.of("t", "ééééééé")))));
    assertEquals("payload", tooBig.field());
    assertTrue(
        tooBig.getMessage().contains("at most 10 bytes") && tooBig.getMessage().contains("has 14"),
        tooBig.getMessage());
    assertEquals(0, rows(), "a batch with one bad message writes nothing");
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

  @Test
  void payloadWithNulAndOverlongNotifyChannelAreRefused() {
    InvalidValueException nul =
        assertThrows(
            InvalidValueException.class,
            () -> Sql.commit(ds, c -> outbox.add(c, Message.of("t", "a\u0000b"))));
    assertEquals("payload", nul.field());
    assertEquals(0, rows());
    String longName = "s".repeat(40) + "." + "t".repeat(40);
    assertEquals(
        "notifyOnAdd",
        assertThrows(
                InvalidValueException.class,
                () -> Outbox.builder().table(longName).notifyOnAdd(true).build())
            .field());
    Outbox.builder().table(longName).build();
  }

  @Test
  void hostileTableNamesAndOptionsAreRejectedBeforeAnySql() {
    for (String name :
        List.of(
            "x;drop table users",
            "a-b",
            "o'brien",
            "\"quoted\"",
            "tab\u00e9",
            "x".repeat(64),
            "a.b.c",
            "",
            "1starts_with_digit",
            "x -- comment")) {
      InvalidValueException e =
          assertThrows(InvalidValueException.class, () -> Outbox.builder().table(name), name);
      assertEquals("table", e.field());
    }
    Outbox.builder().table("myschema.my_outbox");
    Dispatcher.Builder b = Dispatcher.builder(ds);
    assertEquals(
        "batchSize must be between 1 and 10000 but was 0",
        assertThrows(InvalidValueException.class, () -> b.batchSize(0)).getMessage());
    assertEquals(
        "concurrency", assertThrows(InvalidValueException.class, () -> b.concurrency(0)).field());
    assertEquals(
        "lease", assertThrows(InvalidValueException.class, () -> b.lease(Duration.ZERO)).field());
    assertEquals(
        "pollInterval",
        assertThrows(InvalidValueException.class, () -> b.pollInterval(Duration.ofMillis(1)))
            .field());
    assertEquals(
        "maxAttempts", assertThrows(InvalidValueException.class, () -> b.maxAttempts(0)).field());
    assertEquals(
        "instanceId", assertThrows(InvalidValueException.class, () -> b.instanceId("")).field());
    assertEquals(
        "payloadLimit",
        assertThrows(InvalidValueException.class, () -> Outbox.builder().payloadLimit(0)).field());
  }

  @Test
  void missingTableIsReportedWithTheSchemaFileToRun() {
    Outbox elsewhere = Outbox.builder().table("no_such_outbox").build();
    Dispatcher d = Dispatcher.builder(ds).outbox(elsewhere, new RecordingTransport()).build();
    PostboxException e = assertThrows(PostboxException.class, d::start);
    assertTrue(
        e.getMessage().contains("no_such_outbox") && e.getMessage().contains("/schema.sql"),
        e.getMessage());
    d.close();
  }
}
