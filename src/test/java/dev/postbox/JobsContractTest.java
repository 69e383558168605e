package dev.postbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postbox.testing.AutoCommitAdvice;
import dev.postbox.testing.Await;
import dev.postbox.testing.Sql;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The durable job queue's behaviour, proven on every database; subclasses only say which. */
public abstract class JobsContractTest extends DatabaseTest {
  private static final Duration WAIT = Duration.ofSeconds(60);

  protected final Jobs jobs = Jobs.builder().build();

  /** A handler that counts executions per payload and can be told to fail or block. */
  static class CountingHandler implements JobHandler {
    final String name;
    final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
    final AtomicInteger total = new AtomicInteger();

    CountingHandler(String name) {
      this.name = name;
    }

    @Override
    public String name() {
      return name;
    }

    @Override
    public void execute(String payload) throws Exception {
      runs.computeIfAbsent(payload, k -> new AtomicInteger()).incrementAndGet();
      total.incrementAndGet();
    }

    int runs(String payload) {
      AtomicInteger n = runs.get(payload);
      return n == null ? 0 : n.get();
    }

    long duplicated() {
      return runs.values().stream().filter(n -> n.get() > 1).count();
    }
  }

  protected Dispatcher.Builder dispatcher(Jobs jobs, JobHandler... handlers) {
    return jobDispatcher(jobs, handlers);
  }

  protected void enqueue(Job... toEnqueue) {
    Sql.commit(ds, c -> jobs.enqueueAll(c, List.of(toEnqueue)));
  }

  private long count(String where) {
    return Sql.count(ds, "SELECT COUNT(*) FROM postbox_jobs WHERE " + where);
  }

  @Test
  void committedJobRunsOnceAndIsKeptAsDone() throws Exception {
    enqueue(Job.of("send-email", "{\"to\":\"a@b.c\"}"));
    CountingHandler handler = new CountingHandler("send-email");
    Dispatcher dispatcher = started(dispatcher(jobs, handler));

    assertTrue(dispatcher.awaitIdle(WAIT));
    assertEquals(1, count("state = 1"));
    assertEquals(1, handler.runs("{\"to\":\"a@b.c\"}"));
    assertEquals(1, handler.total.get());
    assertEquals(0, count("state = 0"));
  }

  @Test
  void rolledBackJobNeverRuns() {
    Sql.rollback(ds, c -> assertTrue(jobs.enqueue(c, Job.of("send-email", "rolled-back"))));
    enqueue(Job.of("send-email", "committed"));
    CountingHandler handler = new CountingHandler("send-email");
    started(dispatcher(jobs, handler));

    Await.until(WAIT, "the committed job", () -> count("state = 1") == 1);
    assertEquals(0, handler.runs("rolled-back"));
    assertEquals(1, handler.total.get());
  }

  @Test
  void delayedJobDoesNotRunBeforeItIsDueByTheDatabaseClock() {
    Duration poll = Duration.ofMillis(200);
    List<Instant> ranAt = new CopyOnWriteArrayList<>();
    JobHandler handler =
        new JobHandler() {
          @Override
          public String name() {
            return "report";
          }

          @Override
          public void execute(String payload) {
            ranAt.add(Sql.dbNow(ds, db));
          }
        };
    enqueue(Job.of("report", "{}").delay(Duration.ofMillis(1500)));
    Instant createdAt = Sql.dbNow(ds, db);
    started(dispatcher(jobs, handler).pollInterval(poll));

    Await.until(WAIT, "the delayed job", () -> ranAt.size() == 1);
    Instant due = createdAt.plusMillis(1500);
    assertFalse(
        ranAt.get(0).isBefore(due.minusMillis(50)), "ran at " + ranAt.get(0) + ", due " + due);
    // one poll interval, plus generous room for a noisy 2-core machine
    Duration late = Duration.between(due, ranAt.get(0));
    assertTrue(late.compareTo(poll.plusSeconds(2)) < 0, "ran " + late + " after it was due");
  }

  @Test
  void afterAClaimThatFoundJobsAnEmptyClaimDoesNotSleepThePollInterval() {
    // nothing wakes the dispatcher: with a poll interval of an hour, the second job runs within
    // the deadline only if the lane looks again soon after the claim that found the first one,
    // as it must when wake-ups lag behind commits (NOTIFY through pgjdbc under a stream of adds)
    CountingHandler handler = new CountingHandler("tick");
    enqueue(Job.of("tick", "now"), Job.of("tick", "soon").delay(Duration.ofSeconds(1)));
    started(dispatcher(jobs, handler).pollInterval(Duration.ofHours(1)));

    Await.until(WAIT, "the job due now", () -> handler.runs("now") == 1);
    Await.until(WAIT, "the job due a second later", () -> handler.runs("soon") == 1);
    assertEquals(2, handler.total.get());
  }

  @Test
  void failingJobIsRetriedExactlyMaxAttemptsThenParkedAndReplayRunsItAgain() throws Exception {
    AtomicBoolean fixed = new AtomicBoolean();
    CountingHandler handler =
        new CountingHandler("flaky") {
          @Override
          public void execute(String payload) throws Exception {
            super.execute(payload);
            if (!fixed.get()) {
              throw new IllegalStateException("smtp down for " + payload);
            }
          }
        };
    enqueue(Job.of("flaky", "default-limit"), Job.of("flaky", "own-limit").maxAttempts(2));
    started(dispatcher(jobs, handler));

    Await.until(WAIT, "both parked", () -> count("state = 2") == 2);
    assertEquals(5, handler.runs("default-limit"), "default maxAttempts");
    assertEquals(2, handler.runs("own-limit"), "the job's own maxAttempts");
    try (Connection c = ds.getConnection()) {
      List<Parked> parked = jobs.parked(c, 10);
      assertEquals(2, parked.size());
      Parked first = parked.get(0);
      assertEquals("flaky", first.topic());
      assertEquals(5, first.attempts());
      assertTrue(first.lastError().contains("smtp down for default-limit"), first.lastError());
      assertEquals(2, jobs.stats(c).parked());

      fixed.set(true);
      assertTrue(jobs.replay(c, first.id()));
      assertTrue(jobs.discard(c, parked.get(1).id()));
      assertFalse(jobs.discard(c, parked.get(1).id()));
    }
    Await.until(WAIT, "the replayed job", () -> count("state = 1") == 1);
    assertEquals(6, handler.runs("default-limit"));
    assertEquals(0, count("state <> 1"), "nothing parked or pending");
  }

  @Test
  void jobRunningThreeTimesItsLeaseRunsOnceBecauseItsLeaseIsRenewed() {
    Duration lease = Duration.ofSeconds(1);
    AtomicInteger runs = new AtomicInteger();
    JobHandler slow =
        new JobHandler() {
          @Override
          public String name() {
            return "slow";
          }

          @Override
          public void execute(String payload) throws Exception {
            runs.incrementAndGet();
            Thread.sleep(lease.multipliedBy(3).toMillis()); // the work itself, not synchronisation
          }
        };
    enqueue(Job.of("slow", "{}"));
    started(dispatcher(jobs, slow).lease(lease));
    started(
        dispatcher(jobs, slow).lease(lease)); // a second instance that would steal an expired lease

    Await.until(WAIT, "the slow job to finish", () -> count("state = 1") == 1);
    assertEquals(1, runs.get());
  }

  @Test
  void completionOfAnInstanceThatLostTheLeaseIsRejected() throws Exception {
    enqueue(Job.of("contested", "{}"));
    CountDownLatch running = new CountDownLatch(1);
    CountDownLatch proceed = new CountDownLatch(1);
    AtomicInteger leaseLost = new AtomicInteger();
    JobHandler paused =
        new JobHandler() {
          @Override
          public String name() {
            return "contested";
          }

          @Override
          public void execute(String payload) throws Exception {
            running.countDown();
            proceed.await();
          }
        };
    started(
        dispatcher(jobs, paused)
            .listener(
                new Listener() {
                  @Override
                  public void leaseLost(String table, int count) {
                    leaseLost.addAndGet(count);
                  }
                }));
    assertTrue(running.await(60, TimeUnit.SECONDS));
    Sql.update(ds, "UPDATE postbox_jobs SET leased_by = 'new-owner', attempts = 2");
    proceed.countDown();

    Await.until(WAIT, "the stale completion", () -> leaseLost.get() == 1);
    assertEquals(
        1,
        count("state = 0 AND leased_by = 'new-owner' AND attempts = 2"),
        "new owner's row untouched");
  }

  @Test
  void restartMidBacklogFinishesEveryJobExactlyOnce() {
    int n = 500;
    List<Job> backlog = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      backlog.add(Job.of("work", "job-" + i));
    }
    Sql.commit(ds, c -> jobs.enqueueAll(c, backlog));
    CountingHandler handler =
        new CountingHandler("work") {
          @Override
          public void execute(String payload) throws Exception {
            super.execute(payload);
            Thread.sleep(2); // a little work, so the backlog is still there when we stop
          }
        };
    Dispatcher first = started(dispatcher(jobs, handler).batchSize(20).concurrency(4));
    Await.until(WAIT, "some progress", () -> handler.total.get() >= 50);
    first.close();
    long doneByFirst = count("state = 1");
    assertTrue(doneByFirst < n, "stopped mid-backlog");
    assertEquals(0, count("leased_by IS NOT NULL"), "nothing left leased after a graceful close");

    started(dispatcher(jobs, handler).batchSize(20).concurrency(4));
    Await.until(WAIT, "the rest", () -> count("state = 1") == n);
    assertEquals(n, handler.runs.size());
    assertEquals(n, handler.total.get());
    assertEquals(0, handler.duplicated());
  }

  @Test
  void retentionCleanupDeletesOnlyFinishedJobsOlderThanTheRetention() {
    Jobs kept = Jobs.builder().retention(Duration.ofMinutes(10)).build();
    Sql.commit(
        ds,
        c ->
            kept.enqueueAll(
                c,
                List.of(
                    Job.of("old-done", "1"),
                    Job.of("old-done", "2"),
                    Job.of("fresh-done", "3"),
                    Job.of("old-parked", "4"),
                    Job.of("future", "5").delay(Duration.ofHours(1)))));
    String ago = Sql.nowPlusMillis(db);
    Sql.update(
        ds,
        "UPDATE postbox_jobs SET state = 1, available_at = " + ago + " WHERE name = 'old-done'",
        -3_600_000L);
    Sql.update(
        ds,
        "UPDATE postbox_jobs SET state = 1, available_at = " + ago + " WHERE name = 'fresh-done'",
        -60_000L);
    Sql.update(
        ds,
        "UPDATE postbox_jobs SET state = 2, available_at = " + ago + " WHERE name = 'old-parked'",
        -3_600_000L);
    started(dispatcher(kept, new CountingHandler("future")).cleanupInterval(Duration.ofMillis(50)));

    Await.until(WAIT, "cleanup", () -> count("name = 'old-done'") == 0);
    assertEquals(1, count("name = 'fresh-done' AND state = 1"), "finished within retention");
    assertEquals(1, count("name = 'old-parked' AND state = 2"), "parked jobs are kept");
    assertEquals(1, count("name = 'future' AND state = 0"), "pending jobs are kept");
  }

  @Test
  void threeDispatchersRunFiveThousandJobsEachExactlyOnce() {
    int n = 5_000;
    List<Job> all = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      all.add(Job.of("work", "job-" + i));
    }
    Sql.commit(ds, c -> assertEquals(n, jobs.enqueueAll(c, all)));
    CountingHandler handler = new CountingHandler("work");
    for (int i = 0; i < 3; i++) {
      started(dispatcher(jobs, handler).batchSize(50).concurrency(8).lease(Duration.ofSeconds(30)));
    }

    Await.until(Duration.ofMinutes(3), "all jobs", () -> count("state = 1") == n);
    assertEquals(n, handler.runs.size());
    assertEquals(n, handler.total.get());
    assertEquals(0, handler.duplicated());
  }

  @Test
  void dedupeKeyMakesASecondLiveJobANoOpWithoutAbortingTheTransaction() {
    Sql.commit(
        ds,
        c -> {
          assertTrue(jobs.enqueue(c, Job.of("sync", "first").dedupeKey("customer-7")));
          assertFalse(jobs.enqueue(c, Job.of("sync", "second").dedupeKey("customer-7")));
          assertTrue(jobs.enqueue(c, Job.of("sync", "other").dedupeKey("customer-8")));
          assertTrue(jobs.enqueue(c, Job.of("sync", "no-key")));
          assertTrue(jobs.enqueue(c, Job.of("sync", "no-key-either")));
        });
    assertEquals(4, count("1 = 1"));
    CountingHandler handler = new CountingHandler("sync");
    started(dispatcher(jobs, handler));
    Await.until(WAIT, "all done", () -> count("state = 1") == 4);
    assertEquals(0, handler.runs("second"));
    // once finished, the key is free again
    Sql.commit(
        ds, c -> assertTrue(jobs.enqueue(c, Job.of("sync", "third").dedupeKey("customer-7"))));
    Await.until(WAIT, "the third", () -> handler.runs("third") == 1);
  }

  @Test
  void aDedupeKeyHeldByARunningJobTakesOneFollowUpThatRunsAfterIt() throws Exception {
    // regression: a job enqueued while the job holding its key ran returned false and was
    // dropped, so a change made during a sync-customer run was never synced
    CountDownLatch firstRunning = new CountDownLatch(1);
    CountDownLatch finishFirst = new CountDownLatch(1);
    List<String> events = new CopyOnWriteArrayList<>();
    JobHandler sync =
        new JobHandler() {
          @Override
          public String name() {
            return "sync";
          }

          @Override
          public void execute(String payload) throws Exception {
            events.add("start " + payload);
            if (payload.equals("first")) {
              firstRunning.countDown();
              finishFirst.await();
            }
            events.add("end " + payload);
          }
        };
    enqueue(Job.of("sync", "first").dedupeKey("customer-7"));
    Dispatcher d = started(dispatcher(jobs, sync).concurrency(4));
    assertTrue(firstRunning.await(60, TimeUnit.SECONDS));

    Sql.commit(
        ds,
        c -> {
          assertTrue(
              jobs.enqueue(c, Job.of("sync", "follow-up").dedupeKey("customer-7")),
              "a follow-up of the running job is taken");
          assertFalse(
              jobs.enqueue(c, Job.of("sync", "second-follow-up").dedupeKey("customer-7")),
              "one follow-up only");
        });
    enqueue(Job.of("sync", "unrelated")); // due after the follow-up: a claim passed it over
    d.wakeUp();
    Await.until(WAIT, "the unrelated job", () -> events.contains("end unrelated"));
    assertFalse(events.contains("start follow-up"), "the follow-up waits for the running job");

    finishFirst.countDown();
    Await.until(WAIT, "the follow-up", () -> events.contains("end follow-up"));
    assertTrue(
        events.indexOf("start follow-up") > events.indexOf("end first"),
        "the follow-up started after the first ended: " + events);
    assertFalse(events.contains("start second-follow-up"));
    Await.until(WAIT, "all done", () -> count("state = 1") == 3);
    // every key free again
    Sql.commit(
        ds, c -> assertTrue(jobs.enqueue(c, Job.of("sync", "later").dedupeKey("customer-7"))));
  }

  @Test
  void aRetriedJobKeepsItsDedupeKeySoItsFollowUpWaitsForTheRetryToEnd() throws Exception {
    // regression: the claim of a retry moved its (cleared) dedupe_key into running_key, so the
    // retry no longer held its key and the follow-up ran beside it
    CountDownLatch retryRunning = new CountDownLatch(1);
    CountDownLatch finishRetry = new CountDownLatch(1);
    AtomicInteger firstAttempts = new AtomicInteger();
    List<String> events = new CopyOnWriteArrayList<>();
    JobHandler sync =
        new JobHandler() {
          @Override
          public String name() {
            return "sync";
          }

          @Override
          public void execute(String payload) throws Exception {
            events.add("start " + payload);
            if (payload.equals("first") && firstAttempts.incrementAndGet() == 1) {
              throw new IllegalStateException("first attempt fails");
            }
            if (payload.equals("first")) {
              retryRunning.countDown();
              finishRetry.await();
            }
            events.add("end " + payload);
          }
        };
    enqueue(Job.of("sync", "first").dedupeKey("customer-9"));
    Dispatcher d = started(dispatcher(jobs, sync).concurrency(4));
    assertTrue(retryRunning.await(60, TimeUnit.SECONDS), "the retry runs");

    Sql.commit(
        ds,
        c ->
            assertTrue(
                jobs.enqueue(c, Job.of("sync", "follow-up").dedupeKey("customer-9")),
                "a follow-up of the retried job is taken"));
    enqueue(Job.of("sync", "unrelated"));
    d.wakeUp();
    Await.until(WAIT, "the unrelated job", () -> events.contains("end unrelated"));
    assertFalse(events.contains("start follow-up"), "the follow-up waits for the retry");

    finishRetry.countDown();
    Await.until(WAIT, "the follow-up", () -> events.contains("end follow-up"));
    assertTrue(
        events.indexOf("start follow-up") > events.indexOf("end first"),
        "the follow-up started after the retry ended: " + events);
  }

  @Test
  void aDedupeKeyDifferingOnlyByOuterWhitespaceIsRefusedNotDroppedAsADuplicate() {
    // regression: on MariaDB "customer-7 " collided with "customer-7" and enqueue returned false
    Sql.commit(
        ds,
        c -> {
          assertTrue(jobs.enqueue(c, Job.of("sync", "first").dedupeKey("customer-7")));
          for (String padded : List.of("customer-7 ", " customer-7", "customer-7\u3000")) {
            Boolean[] enqueued = {null};
            InvalidValueException e =
                assertThrows(
                    InvalidValueException.class,
                    () -> enqueued[0] = jobs.enqueue(c, Job.of("sync", "second").dedupeKey(padded)),
                    () -> "'" + padded + "' was not refused: enqueue returned " + enqueued[0]);
            assertEquals("dedupeKey", e.field(), e.getMessage());
            assertTrue(
                e.getMessage().contains("must not start or end with whitespace"), e.getMessage());
          }
          // the transaction is still usable
          assertFalse(jobs.enqueue(c, Job.of("sync", "third").dedupeKey("customer-7")));
        });
    assertEquals(1, count("1 = 1"));
    assertEquals("customer-7", Sql.value(ds, "SELECT dedupe_key FROM postbox_jobs"));
  }

  @Test
  void theAutoCommitRefusalAdvisesTheCallersTransactionNotAllowAutoCommit() throws Exception {
    // regression: it advised allowAutoCommit(true), which gives up the atomicity it protects
    AutoCommitAdvice.assertGivenBy(ds, c -> jobs.enqueue(c, Job.of("a", "{}")));
  }

  @Test
  void invalidJobsAndAutoCommitAreRefusedAndNothingIsWritten() throws Exception {
    assertEquals(
        "name", assertThrows(InvalidValueException.class, () -> Job.of("bad name", "{}")).field());
    assertEquals("name", assertThrows(InvalidValueException.class, () -> Job.of("", "{}")).field());
    assertEquals(
        "payload", assertThrows(InvalidValueException.class, () -> Job.of("ok", null)).field());
    assertEquals(
        "delay",
        assertThrows(
                InvalidValueException.class, () -> Job.of("ok", "{}").delay(Duration.ofSeconds(-1)))
            .field());
    assertEquals(
        "maxAttempts",
        assertThrows(InvalidValueException.class, () -> Job.of("ok", "{}").maxAttempts(0)).field());
    assertEquals(
        "dedupeKey",
        assertThrows(
                InvalidValueException.class, () -> Job.of("ok", "{}").dedupeKey("k".repeat(129)))
            .field());
    assertEquals(
        "retention",
        assertThrows(
                InvalidValueException.class, () -> Jobs.builder().retention(Duration.ofSeconds(-1)))
            .field());
    assertEquals(
        "handlers",
        assertThrows(
                InvalidValueException.class,
                () ->
                    Dispatcher.builder(ds)
                        .jobs(jobs, new CountingHandler("a"), new CountingHandler("a")))
            .field());
    Jobs small = Jobs.builder().payloadLimit(4).build();
    InvalidValueException tooBig =
        assertThrows(
            InvalidValueException.class,
            () ->
                Sql.commit(
                    ds,
                    c ->
                        small.enqueueAll(c, List.of(Job.of("ok", "1234"), Job.of("ok", "12345")))));
    assertEquals("payload", tooBig.field());
    try (Connection c = ds.getConnection()) {
      c.setAutoCommit(true);
      PostboxException e =
          assertThrows(PostboxException.class, () -> jobs.enqueue(c, Job.of("ok", "{}")));
      assertTrue(e.getMessage().contains("auto-commit"));
    }
    assertEquals(0, count("1 = 1"));
  }
}
