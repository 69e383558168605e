package dev.postbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postbox.testing.Await;
import dev.postbox.testing.BatchRecordingTransport;
import dev.postbox.testing.RecordingTransport;
import dev.postbox.testing.Sql;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A send or a job that hangs, ignoring interrupts, times out: its attempt counts as failed and is
 * retried, its slot and its key are free again, and its late return changes nothing. Proven on
 * every database, since the timeout's outcome and the fence that stops a late one are written by
 * each database's statements.
 */
public abstract class HungDeliveryContractTest extends OutboxSuite {
  private static final Duration TIMEOUT = Duration.ofSeconds(1);
  private static final Duration LATER = Duration.ofHours(1);
  private static final String SEND_TIMED_OUT =
      "java.util.concurrent.TimeoutException: send timed out after PT1S";
  private static final String JOB_TIMED_OUT =
      "java.util.concurrent.TimeoutException: job timed out after PT1S";

  private final List<Hang> hangs = new CopyOnWriteArrayList<>();

  @AfterEach
  void releaseHungThreads() throws InterruptedException {
    for (Hang hang : hangs) {
      hang.releaseAndJoin();
    }
    hangs.clear();
  }

  @Test
  void aSendThatHangsIgnoringInterruptsTimesOutFreesItsSlotAndKeyAndIsRetriedBeforeItsKeysNext()
      throws Exception {
    // regression: a hung send held its row, its key and its slot for ever
    Hang hang = hang();
    RecordingTransport transport =
        new RecordingTransport() {
          @Override
          public void send(Envelope envelope) throws Exception {
            if (envelope.eventId().equals("hung") && envelope.attempt() == 1) {
              hang.block();
              return; // returns at last, as if the broker had taken it
            }
            super.send(envelope);
          }
        };
    add(
        Message.of("t", "{}").eventId("hung").key("k"),
        Message.of("t", "{}").eventId("next").key("k"),
        Message.of("t", "{}").eventId("free-0"),
        Message.of("t", "{}").eventId("free-1"),
        Message.of("t", "{}").eventId("free-2"));
    Recorded recorded = new Recorded(false);
    Dispatcher dispatcher =
        started(
            dispatcher(transport)
                .concurrency(1)
                .sendTimeout(TIMEOUT)
                .backoff(Backoff.fixed(LATER))
                .listener(recorded));

    Await.until(
        WAIT,
        "the messages without a key, through the only slot",
        () ->
            transport.count("free-0") + transport.count("free-1") + transport.count("free-2") == 3);
    Await.until(WAIT, "the timeout recorded", () -> !recorded.failed.isEmpty());
    assertEquals(List.of("hung#1 " + SEND_TIMED_OUT), recorded.failed);
    assertOutboxRow("hung", 1, SEND_TIMED_OUT);
    assertEquals(0, transport.count("next"), "the key's next message, sent before the retry");

    hang.releaseAndJoin();
    assertTrue(hang.interrupts.get() > 0, "the hung send was interrupted");
    assertTrue(dispatcher.awaitIdle(WAIT));
    assertOutboxRow("hung", 1, SEND_TIMED_OUT); // the late return is not recorded
    assertEquals(List.of("hung#1 " + SEND_TIMED_OUT), recorded.failed);
    assertEquals(0, recorded.leaseLost.get(), "lost leases reported");

    Sql.update(
        ds,
        "UPDATE postbox_outbox SET available_at = "
            + Sql.nowPlusMillis(db)
            + " WHERE msg_key = 'k'",
        0L);
    dispatcher.wakeUp();
    Await.until(WAIT, "the retry and the key's next message", () -> rows() == 0);
    List<String> keyed = new ArrayList<>();
    for (Envelope e : transport.envelopes) {
      if ("k".equals(e.key())) {
        keyed.add(e.eventId() + "#" + e.attempt());
      }
    }
    assertEquals(List.of("hung#2", "next#1"), keyed);
    assertEquals(5, transport.deliveries.size());
    assertEquals(0, transport.duplicated());
    assertEquals(List.of("hung#1 " + SEND_TIMED_OUT), recorded.failed);
    assertEquals(0, recorded.leaseLost.get(), "lost leases reported");
  }

  @Test
  void aSendBatchThatHangsTimesOutAsAWholeAndItsMessagesAreRetried() throws Exception {
    Hang hang = hang();
    AtomicInteger calls = new AtomicInteger();
    BatchRecordingTransport transport =
        new BatchRecordingTransport() {
          @Override
          public void sendBatch(List<Envelope> batch) throws Exception {
            if (calls.incrementAndGet() == 1) {
              hang.block();
              return;
            }
            super.sendBatch(batch);
          }
        };
    addNumbered("batched-", 2); // two: three first failures at once would be taken for an outage
    Recorded recorded = new Recorded(false);
    Dispatcher dispatcher =
        started(dispatcher(transport).concurrency(1).sendTimeout(TIMEOUT).listener(recorded));

    Await.until(WAIT, "both messages sent again", () -> rows() == 0);
    hang.releaseAndJoin();
    assertTrue(dispatcher.awaitIdle(WAIT));
    assertEquals(
        List.of("batched-0#1 " + SEND_TIMED_OUT, "batched-1#1 " + SEND_TIMED_OUT),
        sorted(recorded.failed));
    assertEquals(List.of("batched-0#2", "batched-1#2"), sorted(recorded.delivered));
    // sent again by sendBatch, once each: in one batch, or in two when the two failures were
    // written a moment apart and a claim came between
    assertEquals(
        List.of("batched-0", "batched-1"),
        sorted(transport.batches.stream().flatMap(List::stream).map(Envelope::eventId).toList()),
        "sent after the hung batch");
    assertEquals(0, transport.singleSends.get());
    assertEquals(0, transport.duplicated());
    assertEquals(0, recorded.leaseLost.get(), "lost leases reported");
  }

  @Test
  void sendsThatHangForEveryMessageAreTakenForAnOutageNotParked() {
    Hang hang = hang();
    AtomicBoolean brokerHangs = new AtomicBoolean(true);
    RecordingTransport transport =
        new RecordingTransport() {
          @Override
          public void send(Envelope envelope) throws Exception {
            if (brokerHangs.get()) {
              hang.block();
              throw new IllegalStateException("the broker answered after the timeout");
            }
            super.send(envelope);
          }
        };
    addNumbered("hanging-", 3);
    Recorded recorded = new Recorded(false);
    started(
        dispatcher(transport)
            .concurrency(3)
            .maxAttempts(2)
            .sendTimeout(TIMEOUT)
            .listener(recorded));

    Await.until(
        WAIT, "an outage or a parked message", () -> recorded.outages.get() > 0 || parked() > 0);
    assertEquals(0, parked(), "parked");
    brokerHangs.set(false);
    Await.until(WAIT, "recovery", () -> rows() == 0);
    assertEquals(3, transport.deliveries.size());
    assertEquals(0, transport.duplicated());
    assertEquals(1, recorded.outages.get(), "outages");
  }

  @Test
  void aJobThatHangsIgnoringInterruptsTimesOutFreesItsSlotAndIsRetried() throws Exception {
    Hang hang = hang();
    List<String> ran = new CopyOnWriteArrayList<>();
    Jobs jobs = Jobs.builder().timeout(TIMEOUT).build();
    JobHandler hanging = JobHandler.of("hang", job -> runOrHang(job, hang, ran));
    JobHandler quick = JobHandler.of("quick", job -> ran.add(job.payload()));
    Recorded recorded = new Recorded(true);
    Dispatcher dispatcher =
        started(
            jobDispatcher(jobs, hanging, quick)
                .concurrency(1)
                .backoff(Backoff.fixed(LATER))
                .listener(recorded));
    enqueue(jobs, Job.of("hang", "hang"));
    dispatcher.wakeUp();
    assertTrue(hang.entered.await(WAIT.toSeconds(), TimeUnit.SECONDS), "the job hangs");
    enqueue(jobs, Job.of("quick", "q0"), Job.of("quick", "q1"));
    dispatcher.wakeUp();

    Await.until(WAIT, "the other jobs, through the only slot", () -> ran.size() == 2);
    Await.until(WAIT, "the timeout recorded", () -> !recorded.failed.isEmpty());
    assertEquals(List.of("hang#1 " + JOB_TIMED_OUT), recorded.failed);
    assertJobRow("hang", 0, 1, JOB_TIMED_OUT);

    hang.releaseAndJoin();
    assertTrue(hang.interrupts.get() > 0, "the hung job was interrupted");
    assertTrue(dispatcher.awaitIdle(WAIT));
    assertJobRow("hang", 0, 1, JOB_TIMED_OUT); // the late return is not recorded
    assertEquals(List.of("hang#1 " + JOB_TIMED_OUT), recorded.failed);
    assertEquals(0, recorded.leaseLost.get(), "lost leases reported");

    Sql.update(
        ds,
        "UPDATE postbox_jobs SET available_at = " + Sql.nowPlusMillis(db) + " WHERE name = 'hang'",
        0L);
    dispatcher.wakeUp();
    Await.until(WAIT, "the retry", () -> ran.contains("hang#2"));
    assertTrue(dispatcher.awaitIdle(WAIT));
    assertJobRow("hang", 1, 2, JOB_TIMED_OUT);
    assertEquals(List.of("q0", "q1", "hang#2"), ran);
    assertEquals(List.of("hang#1 " + JOB_TIMED_OUT), recorded.failed);
    assertEquals(0, recorded.leaseLost.get(), "lost leases reported");
  }

  @Test
  void aHandlersOwnTimeoutAppliesWhenTheJobQueueHasNone() throws Exception {
    Hang hang = hang();
    List<String> ran = new CopyOnWriteArrayList<>();
    Jobs jobs = Jobs.builder().build();
    JobHandler hanging = JobHandler.of("hang", job -> runOrHang(job, hang, ran)).timeout(TIMEOUT);
    Recorded recorded = new Recorded(true);
    Dispatcher dispatcher = started(jobDispatcher(jobs, hanging).listener(recorded));
    enqueue(jobs, Job.of("hang", "hang"));
    dispatcher.wakeUp();

    Await.until(WAIT, "the retry", () -> ran.contains("hang#2"));
    assertTrue(dispatcher.awaitIdle(WAIT));
    assertJobRow("hang", 1, 2, JOB_TIMED_OUT);
    assertEquals(List.of("hang#1 " + JOB_TIMED_OUT), recorded.failed);
  }

  @Test
  void aHandlerWithoutTimeoutRunsOnWhileTheJobQueuesTimeoutEndsAnother() throws Exception {
    Hang hang = hang();
    Hang slow = new Hang(); // released by the test: must not be interrupted meanwhile
    hangs.add(slow);
    List<String> ran = new CopyOnWriteArrayList<>();
    Jobs jobs = Jobs.builder().timeout(TIMEOUT).build();
    JobHandler untimed =
        JobHandler.of(
                "slow",
                job -> {
                  slow.block();
                  ran.add("slow#" + job.attempt());
                })
            .noTimeout();
    JobHandler hanging = JobHandler.of("hang", job -> runOrHang(job, hang, ran));
    Recorded recorded = new Recorded(true);
    Dispatcher dispatcher =
        started(
            jobDispatcher(jobs, untimed, hanging)
                .concurrency(2)
                .backoff(Backoff.fixed(LATER))
                .listener(recorded));
    enqueue(jobs, Job.of("slow", "slow"));
    dispatcher.wakeUp();
    assertTrue(slow.entered.await(WAIT.toSeconds(), TimeUnit.SECONDS), "the slow job runs");
    enqueue(jobs, Job.of("hang", "hang"));
    dispatcher.wakeUp();

    // the slow job started first: a timeout of its own would have ended it before this one
    Await.until(WAIT, "the hanging job's timeout recorded", () -> !recorded.failed.isEmpty());
    slow.releaseAndJoin();
    Await.until(WAIT, "the slow job", () -> ran.contains("slow#1"));
    assertTrue(dispatcher.awaitIdle(WAIT));
    assertEquals(0, slow.interrupts.get(), "interrupts of the job without timeout");
    assertJobRow("slow", 1, 1, null);
    assertEquals(List.of("hang#1 " + JOB_TIMED_OUT), recorded.failed);
  }

  /** Attempt 1 hangs, and returns when released without recording anything; later ones run. */
  private static void runOrHang(JobContext job, Hang hang, List<String> ran) {
    if (job.attempt() == 1) {
      hang.block();
      return;
    }
    ran.add("hang#" + job.attempt());
  }

  private Hang hang() {
    Hang hang = new Hang();
    hangs.add(hang);
    return hang;
  }

  private void enqueue(Jobs jobs, Job... toEnqueue) {
    Sql.commit(ds, c -> jobs.enqueueAll(c, List.of(toEnqueue)));
  }

  private void assertOutboxRow(String eventId, int attempts, String lastError) {
    String where = " FROM postbox_outbox WHERE event_id = '" + eventId + "'";
    assertEquals(0, Sql.count(ds, "SELECT state" + where), eventId + " state");
    assertEquals(attempts, Sql.count(ds, "SELECT attempts" + where), eventId + " attempts");
    assertEquals(lastError, Sql.value(ds, "SELECT last_error" + where), eventId + " last_error");
  }

  private void assertJobRow(String name, int state, int attempts, String lastError) {
    String where = " FROM postbox_jobs WHERE name = '" + name + "'";
    assertEquals(state, Sql.count(ds, "SELECT state" + where), name + " state");
    assertEquals(attempts, Sql.count(ds, "SELECT attempts" + where), name + " attempts");
    assertEquals(lastError, Sql.value(ds, "SELECT last_error" + where), name + " last_error");
  }

  private static List<String> sorted(List<String> list) {
    List<String> sorted = new ArrayList<>(list);
    sorted.sort(null);
    return sorted;
  }

  /**
   * Blocks the threads that call {@link #block} until released, swallowing every interrupt, as a
   * client stuck in a call that ignores interrupts does.
   */
  static final class Hang {
    final CountDownLatch entered = new CountDownLatch(1);
    final AtomicInteger interrupts = new AtomicInteger();
    private final CountDownLatch released = new CountDownLatch(1);
    private final List<Thread> threads = new CopyOnWriteArrayList<>();

    void block() {
      threads.add(Thread.currentThread());
      entered.countDown();
      while (true) {
        try {
          released.await();
          return;
        } catch (InterruptedException e) {
          interrupts.incrementAndGet(); // and block on
        }
      }
    }

    /** Lets every blocked thread return, and waits until they have ended. */
    void releaseAndJoin() throws InterruptedException {
      released.countDown();
      for (Thread t : threads) {
        assertTrue(t.join(WAIT), "a released thread ended");
      }
    }
  }

  /**
   * What the listener was told: each failure and delivery as {@code eventId#attempt}, or {@code
   * name#attempt} for jobs.
   */
  static final class Recorded implements Listener {
    private final boolean jobs;
    final List<String> failed = new CopyOnWriteArrayList<>();
    final List<String> delivered = new CopyOnWriteArrayList<>();
    final AtomicInteger leaseLost = new AtomicInteger();
    final AtomicInteger outages = new AtomicInteger();

    Recorded(boolean jobs) {
      this.jobs = jobs;
    }

    private String of(Delivery d) {
      return (jobs ? d.topic() : d.ref()) + "#" + d.attempt();
    }

    @Override
    public void failed(Delivery delivery, Throwable error, Duration retryIn) {
      failed.add(of(delivery) + " " + error);
    }

    @Override
    public void delivered(Delivery delivery, Duration elapsed) {
      delivered.add(of(delivery));
    }

    @Override
    public void leaseLost(String table, int count) {
      leaseLost.addAndGet(count);
    }

    @Override
    public void outageStarted(String table) {
      outages.incrementAndGet();
    }
  }
}
