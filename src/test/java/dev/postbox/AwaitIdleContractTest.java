package dev.postbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.postbox.testing.ClaimFailure;
import dev.postbox.testing.RecordingTransport;
import dev.postbox.testing.Sql;
import dev.postbox.testing.StalledExtraClaim;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * {@link Dispatcher#awaitIdle}: what a user's test relies on after it returns, proven on every
 * database. The dispatchers poll once a minute, so only awaitIdle's own wake-ups explain a delivery
 * within the test's time.
 */
public abstract class AwaitIdleContractTest extends OutboxSuite {
  private static final Duration POLL = Duration.ofMinutes(1);

  private Dispatcher.Builder slowPolling(Transport transport) {
    return dispatcher(transport).pollInterval(POLL);
  }

  /** A dispatcher on {@code source} (one with faults), polling once a minute. */
  private Dispatcher.Builder slowPollingOn(DataSource source, Transport transport) {
    return Dispatcher.builder(source)
        .outbox(outbox, transport)
        .instanceId(nextInstanceId())
        .pollInterval(POLL);
  }

  @Test
  void everyCommittedMessageIsDeliveredAndDeletedWhenItReturns() throws Exception {
    RecordingTransport transport = new RecordingTransport();
    Dispatcher dispatcher = started(slowPolling(transport).batchSize(100));
    assertTrue(dispatcher.awaitIdle(WAIT), "idle before anything was added");
    addNumbered("m-", 250); // three claims' worth, committed after the dispatcher went idle

    assertTrue(dispatcher.awaitIdle(WAIT));
    assertEquals(250, transport.total.get());
    for (int i = 0; i < 250; i++) {
      assertEquals(1, transport.count("m-" + i), "m-" + i);
    }
    assertEquals(0, rows());
  }

  @Test
  void anExtraLoopsClaimStillUnderWayKeepsItBusy() throws Exception {
    // regression: the main loop's empty claim proved the lane idle while an extra loop's claim had
    // leased rows and not yet handed them over, so awaitIdle returned with those rows undelivered
    assumeTrue(db.database() != Database.SQLITE, "SQLite has one writer: no extra claim loops");
    addNumbered("m-", 250);
    StalledExtraClaim stalled = new StalledExtraClaim(ds, 50);
    RecordingTransport transport = new RecordingTransport();
    Dispatcher dispatcher =
        started(slowPollingOn(stalled.dataSource(), transport).batchSize(100).claimsInFlight(2));

    boolean idle;
    try {
      idle = dispatcher.awaitIdle(WAIT);
    } finally {
      stalled.release();
    }
    assertTrue(stalled.stalled(), "the extra loop's claim was stalled");
    assertTrue(idle);
    assertEquals(250, transport.total.get(), "delivered when awaitIdle returned");
    assertEquals(0, rows());
  }

  @Test
  void aClaimWhoseCommitIsNotAcknowledgedKeepsItBusyUntilItsRowsAreDelivered() throws Exception {
    // regression: the claim's rows stayed leased, unseen by the dispatcher, so the next (empty)
    // claim proved the lane idle and awaitIdle returned with none of them delivered
    addNumbered("m-", 20);
    ClaimFailure lostAck = ClaimFailure.afterCommit(db, 1);
    RecordingTransport transport = new RecordingTransport();
    Dispatcher dispatcher =
        started(
            slowPollingOn(lostAck.dataSource(), transport)
                .lease(Duration.ofSeconds(2))); // the rows come back once it has passed

    assertTrue(dispatcher.awaitIdle(WAIT));
    assertEquals(1, lostAck.injected(), "claims whose commit was not acknowledged");
    assertEquals(20, transport.total.get(), "delivered when awaitIdle returned");
    assertEquals(0, transport.duplicated(), "duplicated");
    assertEquals(0, rows());
  }

  @Test
  void aClaimThatFailedWithoutCommittingDoesNotDelayIt() throws Exception {
    // an error without SQLState (all of sqlite-jdbc's) says nothing of a broken connection: the
    // claim was rolled back, so awaitIdle must not wait for a lease (2 minutes here) to pass
    addNumbered("m-", 20);
    ClaimFailure failure = ClaimFailure.withoutState(db, 1);
    RecordingTransport transport = new RecordingTransport();
    Dispatcher dispatcher = started(slowPollingOn(failure.dataSource(), transport));

    assertTrue(dispatcher.awaitIdle(Duration.ofSeconds(30)));
    assertEquals(1, failure.injected(), "claims failed");
    assertEquals(20, transport.total.get(), "delivered when awaitIdle returned");
    assertEquals(0, rows());
  }

  @Test
  void aDeliveryInFlightKeepsItBusyUntilItsOutcomeIsWritten() throws Exception {
    CountDownLatch sending = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger sent = new AtomicInteger();
    Dispatcher dispatcher =
        started(
            slowPolling(
                e -> {
                  sending.countDown();
                  release.await();
                  sent.incrementAndGet();
                }));
    add(Message.of("t", "{}").eventId("blocked"));
    dispatcher.wakeUp();
    assertTrue(sending.await(WAIT.toSeconds(), TimeUnit.SECONDS));

    assertFalse(dispatcher.awaitIdle(Duration.ofMillis(200)), "idle while a send runs");
    release.countDown();
    assertTrue(dispatcher.awaitIdle(WAIT));
    assertEquals(1, sent.get());
    assertEquals(0, rows());
  }

  @Test
  void aRetryWaitingForItsBackoffDoesNotKeepItBusy() throws Exception {
    RecordingTransport delivered = new RecordingTransport();
    Transport failingOne =
        e -> {
          if (e.eventId().equals("fails")) {
            throw new IllegalStateException("broker says no");
          }
          delivered.send(e);
        };
    add(Message.of("t", "{}").eventId("fails"), Message.of("t", "{}").eventId("ok"));
    Dispatcher dispatcher =
        started(slowPolling(failingOne).backoff(Backoff.fixed(Duration.ofHours(1))));

    assertTrue(dispatcher.awaitIdle(WAIT));
    assertEquals(1, delivered.count("ok"));
    assertEquals(1, delivered.total.get());
    assertEquals(
        1,
        Sql.count(
            ds, "SELECT COUNT(*) FROM postbox_outbox WHERE event_id = 'fails' AND state = 0"));
    assertEquals(1, Sql.count(ds, "SELECT attempts FROM postbox_outbox WHERE event_id = 'fails'"));
  }

  @Test
  void messagesBehindAParkedKeyDoNotKeepItBusy() throws Exception {
    RecordingTransport delivered = new RecordingTransport();
    Transport poisonFirst =
        e -> {
          if (e.eventId().equals("k-1")) {
            throw new RejectedMessageException("cannot be sent", null);
          }
          delivered.send(e);
        };
    add(
        Message.of("t", "{}").eventId("k-1").key("k"),
        Message.of("t", "{}").eventId("k-2").key("k"),
        Message.of("t", "{}").eventId("other").key("other"));
    Dispatcher dispatcher = started(slowPolling(poisonFirst).maxAttempts(1));

    assertTrue(dispatcher.awaitIdle(WAIT));
    assertEquals(1, delivered.count("other"));
    assertEquals(0, delivered.count("k-2"), "delivered before the parked message of its key");
    assertEquals(1, Sql.count(ds, "SELECT COUNT(*) FROM postbox_outbox WHERE state = 2"));
    assertEquals(1, Sql.count(ds, "SELECT COUNT(*) FROM postbox_outbox WHERE state = 0"));
  }

  @Test
  void dueMessagesBeyondAWindowFullOfBlockedRowsKeepItBusy() throws Exception {
    // regression: the claim searched a window of 10 due rows, all waiting behind a parked head;
    // the walk beyond it visited a batch of keys per claim and looked for unkeyed rows at most
    // once a second, so an empty claim "proved" the lane idle with most of these undelivered
    List<Message> blocked = new ArrayList<>();
    for (int i = 0; i <= 12; i++) {
      blocked.add(Message.of("t", "{}").eventId("p-" + i).key("p"));
    }
    Sql.commit(ds, c -> outbox.addAll(c, blocked));
    Sql.update(ds, "UPDATE postbox_outbox SET state = 2 WHERE event_id = 'p-0'");
    List<Message> beyond = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      beyond.add(Message.of("t", "{}").eventId("plain-" + i));
      beyond.add(Message.of("t", "{}").eventId("keyed-" + i).key(String.format("b%02d", i)));
    }
    Sql.commit(ds, c -> outbox.addAll(c, beyond));
    RecordingTransport transport = new RecordingTransport();
    Dispatcher dispatcher = started(slowPolling(transport).batchSize(5));

    assertTrue(dispatcher.awaitIdle(WAIT));
    assertEquals(60, transport.total.get(), "delivered when awaitIdle returned");
    assertEquals(0, transport.duplicated(), "duplicated");
    for (int i = 1; i <= 12; i++) {
      assertEquals(0, transport.count("p-" + i), "p-" + i + " overtook its parked head");
    }
  }

  @Test
  void jobsAreRunAndDelayedOnesDoNotKeepItBusy() throws Exception {
    Jobs jobs = Jobs.builder().build();
    AtomicInteger runs = new AtomicInteger();
    Dispatcher dispatcher =
        started(
            Dispatcher.builder(ds)
                .jobs(jobs, JobHandler.of("count", job -> runs.incrementAndGet()))
                .instanceId(nextInstanceId())
                .pollInterval(POLL));
    Sql.commit(
        ds,
        c ->
            jobs.enqueueAll(
                c,
                List.of(
                    Job.of("count", "1"),
                    Job.of("count", "2"),
                    Job.of("count", "later").delay(Duration.ofHours(1)))));

    assertTrue(dispatcher.awaitIdle(WAIT));
    assertEquals(2, runs.get());
    assertEquals(2, Sql.count(ds, "SELECT COUNT(*) FROM postbox_jobs WHERE state = 1"));
    assertEquals(1, Sql.count(ds, "SELECT COUNT(*) FROM postbox_jobs WHERE state = 0"));
  }

  @Test
  void refusedBeforeStartAndForABadTimeout() throws Exception {
    Dispatcher dispatcher = slowPolling(new RecordingTransport()).build();
    IllegalStateException notStarted =
        assertThrows(IllegalStateException.class, () -> dispatcher.awaitIdle(WAIT));
    assertTrue(notStarted.getMessage().contains("not started"), notStarted.getMessage());
    dispatcher.start();
    InvalidValueException negative =
        assertThrows(
            InvalidValueException.class, () -> dispatcher.awaitIdle(Duration.ofMillis(-1)));
    assertTrue(negative.getMessage().contains("timeout"), negative.getMessage());
    dispatcher.close();
    assertFalse(dispatcher.awaitIdle(WAIT), "a closed dispatcher is never idle");
  }
}
