package dev.postbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postbox.testing.Await;
import dev.postbox.testing.BatchRecordingTransport;
import dev.postbox.testing.RecordingTransport;
import dev.postbox.testing.Sql;
import dev.postbox.testing.Threads;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * What {@link Dispatcher#close()} does with rows still claimed or sending (interrupts them and
 * hands them back), proven on every database.
 */
public abstract class OutboxShutdownContractTest extends OutboxSuite {

  /** Each row's available_at, as the driver renders it (SQLite: epoch millis, zero-padded). */
  private Map<Long, String> dueTimes() throws Exception {
    Map<Long, String> due = new HashMap<>();
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT id, available_at FROM postbox_outbox")) {
      while (rs.next()) {
        Object value = rs.getObject(2);
        due.put(
            rs.getLong(1),
            value instanceof Number n ? String.format("%020d", n.longValue()) : value.toString());
      }
    }
    return due;
  }

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
  void closeHandsBackRowsThatWereClaimedButNotStartedInTheirTurn() throws Exception {
    List<Message> messages = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      messages.add(Message.of("t", "{}").eventId("c-" + i));
    }
    add(messages.toArray(Message[]::new));
    Map<Long, String> dueBefore = dueTimes();
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
    Map<Long, String> dueAfter = dueTimes();
    if (db.database() == Database.SQLITE) {
      // UPDATE … RETURNING returns the values as updated: a hand-back is due at once
      dueAfter.forEach((id, due) -> assertTrue(due.compareTo(dueBefore.get(id)) >= 0));
    } else {
      dueBefore.keySet().retainAll(dueAfter.keySet());
      assertEquals(dueBefore, dueAfter, "handed back rows are due as they were: in their turn");
    }
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
}
