package dev.postbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postbox.testing.Await;
import dev.postbox.testing.ClaimFailure;
import dev.postbox.testing.LostAcknowledgement;
import dev.postbox.testing.RecordingListener;
import dev.postbox.testing.RecordingTransport;
import dev.postbox.testing.Sql;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * What the dispatcher delivers, and to whom: committed messages exactly once, leases, fencing of
 * stale outcomes, takeover, several dispatchers, delivery-thread isolation and the schema upgrade,
 * proven on every database.
 */
public abstract class OutboxDeliveryContractTest extends OutboxSuite {

  @Test
  void committedMessageIsDeliveredWithEverythingAdded() throws Exception {
    add(
        Message.of("order.placed", "{\"id\":42}")
            .eventId("order-42:v1")
            .key("order-42")
            .header("traceparent", "00-abc-def-01"));
    RecordingTransport transport = new RecordingTransport();
    Dispatcher dispatcher = started(dispatcher(transport));

    assertTrue(dispatcher.awaitIdle(WAIT));
    assertEquals(1, transport.total.get());
    assertEquals(0, rows());
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
  void rolledBackMessageIsNeverDelivered() throws Exception {
    Sql.rollback(
        ds,
        c -> assertTrue(outbox.add(c, Message.of("order.placed", "{}").eventId("rolled-back"))));
    add(Message.of("order.placed", "{}").eventId("committed"));
    RecordingTransport transport = new RecordingTransport();
    Dispatcher dispatcher = started(dispatcher(transport));

    assertTrue(dispatcher.awaitIdle(WAIT));
    assertEquals(1, transport.count("committed"));
    assertEquals(0, rows());
    assertEquals(0, transport.count("rolled-back"));
    assertEquals(1, transport.total.get());
  }

  @Test
  void aClaimFailingWhileItCarriesFinishedRowsLeavesThemToTheWriterAndNothingIsRedelivered() {
    ClaimFailure failure = ClaimFailure.carrying(db, 1);
    RecordingTransport transport = new RecordingTransport();
    Dispatcher d = started(trickling(failure.dataSource(), transport));
    trickle(d, transport, "trickle-", 20);

    assertEquals(1, failure.injected(), "claims failed while carrying finished rows");
    assertEachDeliveredOnce(transport, 20);
  }

  @Test
  void aClaimWhoseCommitIsNotAcknowledgedWhileItCarriesFinishedRowsReportsNoLeaseLost() {
    ClaimFailure lostAck = ClaimFailure.carryingAfterCommit(db, 1);
    RecordingTransport transport = new RecordingTransport();
    RecordingListener listener = new RecordingListener();
    Dispatcher d =
        started(
            trickling(lostAck.dataSource(), transport)
                .lease(Duration.ofSeconds(3)) // what the lost claim took is delivered after it
                .listener(listener));
    trickle(d, transport, "ack-", 20);

    assertEquals(1, lostAck.injected(), "claims whose commit was not acknowledged");
    assertEquals(0, listener.leaseLost.get(), "leases reported lost");
    assertEachDeliveredOnce(transport, 20);
    d.close(); // the last delivered calls wait for nothing then
    for (int i = 0; i < 20; i++) {
      assertEquals(1, listener.count("delivered", "ack-" + i), "delivered calls of ack-" + i);
    }
  }

  /** A dispatcher on {@code source} that polls every 20 ms, for the trickle below. */
  private Dispatcher.Builder trickling(DataSource source, Transport transport) {
    return Dispatcher.builder(source)
        .outbox(outbox, transport)
        .instanceId(nextInstanceId())
        .pollInterval(Duration.ofMillis(20))
        .shutdownTimeout(Duration.ofSeconds(10));
  }

  private static void assertEachDeliveredOnce(RecordingTransport transport, int n) {
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
  void fourClaimsInFlightDrainABacklogExactlyOnceWithClaimsFromSeveralLoops() {
    int n = 5_000;
    addBacklog(n, "c-");
    RecordingTransport transport = new RecordingTransport();
    Set<String> claimingThreads = ConcurrentHashMap.newKeySet();
    started(
        dispatcher(transport)
            .batchSize(50)
            .concurrency(8)
            .claimsInFlight(4)
            .listener(
                new Listener() {
                  @Override
                  public void claimed(String table, int count) {
                    claimingThreads.add(Thread.currentThread().getName());
                  }
                }));

    Await.until(
        Duration.ofMinutes(3), "all delivered", () -> transport.total.get() >= n && rows() == 0);
    assertDeliveredOnceEach(transport, n);
    // SQLite has one writer: its claims stay one at a time
    int loops = db.database() == Database.SQLITE ? 1 : 2;
    assertTrue(
        claimingThreads.size() >= loops,
        "claims came from " + claimingThreads + ", expected at least " + loops + " loops");
  }

  @Test
  void aLaneWithOneClaimLoopAndSlowSendsClaimsTheNextBatchWhileTheLastOneStillWaitsForSlots() {
    // slow sends must not run out of rows while the only loop claims: once its sends have proven
    // slow next to a claim (the second claim, after ten 20 ms sends), it claims again when fewer
    // than a batch wait, not when every claimed row has started and a slot is free
    int n = 30;
    List<Message> backlog = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      backlog.add(Message.of("t", "{}").eventId("w-" + i));
    }
    add(backlog.toArray(Message[]::new));
    RecordingTransport transport =
        new RecordingTransport() {
          @Override
          public void send(Envelope envelope) throws Exception {
            long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(20);
            for (long left = until - System.nanoTime();
                left > 0;
                left = until - System.nanoTime()) {
              LockSupport.parkNanos(left); // a slow broker
            }
            super.send(envelope);
          }
        };
    AtomicInteger claimed = new AtomicInteger();
    AtomicInteger sentAtThirdClaim = new AtomicInteger(-1);
    started(
        dispatcher(transport)
            .batchSize(10)
            .concurrency(1)
            .claimsInFlight(1)
            .listener(
                new Listener() {
                  @Override
                  public void claimed(String table, int count) {
                    if (claimed.addAndGet(count) == 3 * 10) {
                      sentAtThirdClaim.set(transport.total.get());
                    }
                  }
                }));

    Await.until(WAIT, "all delivered", () -> transport.total.get() >= n && rows() == 0);
    assertDeliveredOnceEach(transport, n);
    // waiting for every row of the second batch to start would have taken 20 sends
    int sent = sentAtThirdClaim.get();
    assertTrue(
        sent >= 10 && sent < 20,
        "sends done when the third batch was claimed: " + sent + ", expected 10 to 19");
  }

  @Test
  void threeDispatchersDeliverTenThousandMessagesExactlyOnce() {
    int n = 10_000;
    addBacklog(n, "m-");
    RecordingTransport transport = new RecordingTransport();
    for (int i = 0; i < 3; i++) {
      started(dispatcher(transport).batchSize(50).concurrency(8).lease(Duration.ofSeconds(30)));
    }

    Await.until(
        Duration.ofMinutes(3), "all delivered", () -> transport.total.get() >= n && rows() == 0);
    assertDeliveredOnceEach(transport, n);
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
    LostAcknowledgement lostAck = new LostAcknowledgement(db, sql -> sql.contains("attempts - ?"));
    AtomicInteger leaseLost = new AtomicInteger();
    // the probe: the first send after the outage began, the newest row handed back (h-10, unless
    // the writer took only some of the hand-backs into the batch whose acknowledgement is lost;
    // the rest wait behind its retry, still leased)
    AtomicReference<String> probe = new AtomicReference<>();
    RecordingTransport transport =
        new RecordingTransport() {
          @Override
          public void send(Envelope envelope) throws Exception {
            String id = envelope.eventId();
            if (List.of("h-1", "h-2", "h-3").contains(id) && envelope.attempt() == 1) {
              throw new java.io.IOException("broker down"); // three first attempts: an outage
            }
            if (probe.compareAndSet(null, id)) {
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
    assertEquals(1, transport.count(probe.get()), "the probe's row sent");
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
    db.runScript(db.sqlFolder().resolve("upgrade-2-to-3.sql"));
    db.runScript(db.sqlFolder().resolve("upgrade-3-to-4.sql"));
    db.runScript(db.sqlFolder().resolve("upgrade-4-to-5.sql"));
    db.runScript(db.sqlFolder().resolve("upgrade-5-to-6.sql"));
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

  /** Adds {@code n} messages with event ids {@code prefix + 0 …}, a thousand per transaction. */
  private void addBacklog(int n, String prefix) {
    for (int batch = 0; batch < n / 1000; batch++) {
      List<Message> messages = new ArrayList<>();
      for (int i = 0; i < 1000; i++) {
        int k = batch * 1000 + i;
        messages.add(Message.of("load", "{\"n\":" + k + "}").eventId(prefix + k));
      }
      Sql.commit(ds, c -> assertEquals(1000, outbox.addAll(c, messages)));
    }
  }

  /** Exactly {@code n} messages delivered, each once, and none left in the table. */
  private void assertDeliveredOnceEach(RecordingTransport transport, int n) {
    assertEquals(n, transport.deliveries.size(), "distinct delivered");
    assertEquals(n, transport.total.get(), "deliveries");
    assertEquals(0, transport.duplicated(), "duplicated");
    assertEquals(0, rows(), "left in the table");
  }
}
