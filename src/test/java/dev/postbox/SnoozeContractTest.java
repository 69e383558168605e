package dev.postbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postbox.testing.Await;
import dev.postbox.testing.KeyOrderChecker;
import dev.postbox.testing.RecordingListener;
import dev.postbox.testing.Sql;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * {@link RetryLater}: a snooze puts a job or a message off without counting an attempt, stores its
 * reason, keeps a key's order, is no outage, and counts as an attempt past {@link
 * RetryLater#MAX_SNOOZES}; proven on every database, subclasses only say which.
 */
public abstract class SnoozeContractTest extends OutboxSuite {
  private final Jobs jobs = Jobs.builder().build();

  private long jobs(String where) {
    return Sql.count(ds, "SELECT COUNT(*) FROM postbox_jobs WHERE " + where);
  }

  private long messages(String where) {
    return Sql.count(ds, "SELECT COUNT(*) FROM postbox_outbox WHERE " + where);
  }

  @Test
  void aSnoozedJobIsDueAgainAfterTheDelayWithItsAttemptNotCountedAndTheReasonStored()
      throws Exception {
    List<Integer> attempts = new CopyOnWriteArrayList<>();
    List<Instant> ranAt = new CopyOnWriteArrayList<>();
    CountDownLatch third = new CountDownLatch(1);
    CountDownLatch finish = new CountDownLatch(1);
    JobHandler handler =
        JobHandler.of(
            "bill",
            job -> {
              ranAt.add(Sql.dbNow(ds, db));
              attempts.add(job.attempt());
              if (attempts.size() < 3) {
                throw RetryLater.in(Duration.ofMillis(300), "429 from billing");
              }
              third.countDown();
              assertTrue(finish.await(60, TimeUnit.SECONDS));
            });
    Sql.commit(ds, c -> jobs.enqueue(c, Job.of("bill", "{}").maxAttempts(1)));
    started(jobDispatcher(jobs, handler));

    assertTrue(third.await(60, TimeUnit.SECONDS), "the third run");
    assertEquals(1, jobs("snoozes = 2 AND attempts = 1 AND state = 0"), "snoozed twice, claimed");
    assertEquals(1, jobs("last_error LIKE '%RetryLater: 429 from billing%'"), "the reason");
    finish.countDown();
    Await.until(WAIT, "the job done", () -> jobs("state = 1") == 1);
    assertEquals(List.of(1, 1, 1), attempts, "every run its first attempt: maxAttempts 1 held");
    for (int i = 1; i < 3; i++) {
      assertTrue(
          !ranAt.get(i).isBefore(ranAt.get(i - 1).plusMillis(250)),
          "run " + i + " at " + ranAt.get(i) + " came after the delay from " + ranAt.get(i - 1));
    }
  }

  @Test
  void aSnoozeWrappedInAnotherExceptionIsStillASnooze() {
    AtomicInteger runs = new AtomicInteger();
    JobHandler handler =
        JobHandler.of(
            "wrapped",
            job -> {
              if (runs.incrementAndGet() == 1) {
                throw new IllegalStateException(
                    "client failed", RetryLater.in(Duration.ZERO, "busy"));
              }
            });
    Sql.commit(ds, c -> jobs.enqueue(c, Job.of("wrapped", "{}").maxAttempts(1)));
    started(jobDispatcher(jobs, handler));

    Await.until(WAIT, "the job done", () -> jobs("state = 1") == 1);
    assertEquals(2, runs.get(), "snoozed once, then run: its only attempt was not spent");
  }

  @Test
  void snoozesPastTheBoundCountAsAttemptsAndTheLastParksTheJob() {
    List<Integer> attempts = new CopyOnWriteArrayList<>();
    JobHandler handler =
        JobHandler.of(
            "stubborn",
            job -> {
              attempts.add(job.attempt());
              throw RetryLater.in(Duration.ZERO, "not yet");
            });
    Sql.commit(ds, c -> jobs.enqueue(c, Job.of("stubborn", "{}").maxAttempts(2)));
    Sql.update(ds, "UPDATE postbox_jobs SET snoozes = ?", RetryLater.MAX_SNOOZES - 1);
    started(jobDispatcher(jobs, handler));

    Await.until(WAIT, "the job parked", () -> jobs("state = 2") == 1);
    // the bound's last snooze is free; the two after it count, and the second is the last attempt
    assertEquals(List.of(1, 1, 2), attempts);
    assertEquals(1, jobs("attempts = 2 AND snoozes = " + RetryLater.MAX_SNOOZES));
    assertEquals(1, jobs("last_error LIKE '%snoozed 100 times%not yet%'"), "why it counted");
  }

  @Test
  void aSnoozedHeadKeepsItsKeyWaitingWhileOtherKeysGoOnThenLeadsItsKey() {
    KeyOrderChecker checker = new KeyOrderChecker();
    AtomicInteger headSends = new AtomicInteger();
    List<Integer> headAttempts = new CopyOnWriteArrayList<>();
    Transport transport =
        e -> {
          checker.sending(e.eventId());
          boolean snooze = e.eventId().equals("k-0") && headSends.incrementAndGet() == 1;
          if (e.eventId().equals("k-0")) {
            headAttempts.add(e.attempt());
          }
          checker.sent(e.eventId(), !snooze);
          if (snooze) {
            throw RetryLater.in(Duration.ofHours(1), "partner closed");
          }
        };
    for (String id : List.of("k-0", "k-1", "k-2", "j-0")) {
      String key = id.substring(0, 1);
      checker.committed(key, id);
      Sql.commit(ds, c -> outbox.add(c, Message.of("t", "{}").eventId(id).key(key)));
    }
    started(dispatcher(transport).maxAttempts(1));

    Await.until(WAIT, "the other key delivered", () -> checker.delivered() == 1);
    Await.until(
        WAIT,
        "k-0 snoozed, k-1 and k-2 handed back behind it, j-0's success written",
        () -> messages("leased_by IS NULL") == 3 && messages("event_id = 'j-0'") == 0);
    assertEquals(1, messages("event_id = 'k-0' AND snoozes = 1 AND attempts = 0"));
    assertEquals(1, messages("last_error LIKE '%partner closed%'"));
    assertEquals(List.of("k-0"), checker.firstSends("k"), "k-1 and k-2 wait for their head");

    // the hour has passed
    Sql.update(
        ds,
        "UPDATE postbox_outbox SET available_at = " + Sql.nowPlusMillis(db) + " WHERE snoozes = 1",
        0L);
    Await.until(WAIT, "the key delivered", () -> checker.delivered() == 4);
    assertEquals(List.of("k-0", "k-1", "k-2"), checker.firstSends("k"));
    assertEquals(0, checker.inversions(), "inversions");
    assertEquals(List.of(1, 1), headAttempts, "its only attempt was not spent by the snooze");
  }

  @Test
  void snoozesOfEveryMessageAreNoOutage() {
    RecordingListener listener = new RecordingListener();
    AtomicInteger outages = new AtomicInteger();
    Listener counting =
        new RecordingListener() {
          @Override
          public void outageStarted(String table) {
            outages.incrementAndGet();
          }

          @Override
          public void failed(Delivery delivery, Throwable error, Duration retryIn) {
            listener.failed(delivery, error, retryIn);
          }
        };
    addNumbered("m", 50);
    started(
        dispatcher(
                e -> {
                  throw RetryLater.in(Duration.ofHours(1));
                })
            .listener(counting));

    // the listener hears of each snooze after its commit
    Await.until(
        WAIT,
        "every message snoozed and reported",
        () -> messages("snoozes = 1") == 50 && listener.total("failed") == 50);
    assertEquals(50, messages("attempts = 0 AND leased_by IS NULL"), "no attempt counted");
    assertEquals(0, outages.get(), "outages started");
  }

  @Test
  void aBatchTransportSnoozesOneEnvelopeByNamingItAndTheOthersAreSent() {
    List<String> sent = new CopyOnWriteArrayList<>();
    BatchTransport transport =
        new BatchTransport() {
          @Override
          public void send(Envelope e) {
            throw new UnsupportedOperationException("batches only");
          }

          @Override
          public void sendBatch(List<Envelope> batch) {
            BatchSendException failed = new BatchSendException();
            for (Envelope e : batch) {
              if (e.eventId().equals("m3")) {
                failed.fail(e, RetryLater.in(Duration.ofHours(1), "quota"));
              } else {
                sent.add(e.eventId());
              }
            }
            if (!failed.failures().isEmpty()) {
              throw failed;
            }
          }
        };
    addNumbered("m", 10);
    started(dispatcher(transport));

    Await.until(WAIT, "the nine others sent, m3 snoozed", () -> messages("1 = 1") == 1);
    Await.until(WAIT, "m3's snooze written", () -> messages("snoozes = 1") == 1);
    assertEquals(9, sent.size(), "sent: " + sent);
    assertEquals(
        1, messages("event_id = 'm3' AND attempts = 0 AND last_error LIKE '%quota%'"), "m3");
  }
}
