package dev.postbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postbox.internal.dialect.Dialects;
import dev.postbox.testing.Await;
import dev.postbox.testing.Sql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * What a job handler is told about its job, a job's id by its dedupe key, and cancelling jobs that
 * have not started, proven on every database; subclasses only say which.
 */
public abstract class JobContextContractTest extends DatabaseTest {
  private static final Duration WAIT = Duration.ofSeconds(60);

  private final Jobs jobs = Jobs.builder().build();

  private Dispatcher.Builder dispatcher(Duration backoff, JobHandler... handlers) {
    return jobDispatcher(jobs, handlers).backoff(Backoff.fixed(backoff));
  }

  /** Enqueues {@code job} (which has a dedupe key) and returns its id. */
  private long enqueue(Job job) {
    AtomicLong id = new AtomicLong();
    Sql.commit(
        ds,
        c -> {
          assertTrue(jobs.enqueue(c, job));
          id.set(jobs.idOf(c, job.dedupeKey()).orElseThrow());
        });
    return id.get();
  }

  private long count(String where) {
    return Sql.count(ds, "SELECT COUNT(*) FROM postbox_jobs WHERE " + where);
  }

  private Instant availableAt(long id) throws Exception {
    try (Connection c = ds.getConnection();
        PreparedStatement ps =
            c.prepareStatement("SELECT available_at FROM postbox_jobs WHERE id = ?")) {
      ps.setLong(1, id);
      try (ResultSet rs = ps.executeQuery()) {
        assertTrue(rs.next());
        return Dialects.of(db.database()).readInstant(rs, "available_at");
      }
    }
  }

  @Test
  void theContextCarriesTheJobAndItsAttemptAndDueTimeOnTheFirstAttemptAndOnARetry()
      throws Exception {
    List<JobContext> seen = new CopyOnWriteArrayList<>();
    List<Instant> ranAt = new CopyOnWriteArrayList<>();
    JobHandler handler =
        JobHandler.of(
            "report",
            job -> {
              ranAt.add(Sql.dbNow(ds, db));
              seen.add(job);
              if (job.attempt() == 1) {
                throw new IllegalStateException("first attempt fails");
              }
            });
    long id =
        enqueue(
            Job.of("report", "{\"day\":1}")
                .dedupeKey("report-1")
                .maxAttempts(3)
                .delay(Duration.ofMillis(300)));
    Instant due = availableAt(id);
    started(dispatcher(Duration.ofMillis(200), handler));

    Await.until(WAIT, "the retry to succeed", () -> count("state = 1") == 1);
    assertEquals(2, seen.size(), "runs");
    for (int i = 0; i < 2; i++) {
      JobContext job = seen.get(i);
      assertEquals(id, job.id());
      assertEquals("report", job.name());
      assertEquals("{\"day\":1}", job.payload());
      assertEquals(i + 1, job.attempt());
      assertEquals(3, job.maxAttempts());
      assertEquals("report-1", job.dedupeKey());
      assertFalse(job.lastAttempt());
      assertFalse(job.dueAt().isAfter(ranAt.get(i)), "due " + job.dueAt() + ", ran " + ranAt);
    }
    assertEquals(due, seen.get(0).dueAt(), "the first attempt: the enqueue's due time");
    // the retry was due when the failure's backoff (200 ms, by the database clock) ended
    assertTrue(
        seen.get(1).dueAt().isAfter(ranAt.get(0).plusMillis(150)), "due " + seen.get(1).dueAt());
  }

  @Test
  void aJobWithoutADedupeKeyHasNoneInItsContextAndItsLastAttemptSaysSo() {
    List<JobContext> seen = new CopyOnWriteArrayList<>();
    Sql.commit(ds, c -> jobs.enqueue(c, Job.of("once", "x").maxAttempts(1)));
    started(dispatcher(Duration.ofMillis(10), JobHandler.of("once", seen::add)));

    Await.until(WAIT, "the job", () -> count("state = 1") == 1);
    assertEquals(1, seen.size());
    assertNull(seen.get(0).dedupeKey());
    assertTrue(seen.get(0).lastAttempt());
  }

  @Test
  void aHandlerThatImplementsNeitherExecuteIsParkedWithTheReason() throws Exception {
    JobHandler nameOnly = () -> "half-written";
    Sql.commit(ds, c -> jobs.enqueue(c, Job.of("half-written", "x").maxAttempts(1)));
    started(dispatcher(Duration.ofMillis(10), nameOnly));

    Await.until(WAIT, "the job parked", () -> count("state = 2") == 1);
    try (Connection c = ds.getConnection()) {
      String error = jobs.parked(c, 1).get(0).lastError();
      assertTrue(
          error.contains("implements neither execute(JobContext) nor execute(String)"), error);
    }
  }

  @Test
  void idOfGivesTheNewJobInItsTransactionAndTheHolderAfterANoOpEnqueue() {
    Sql.commit(
        ds,
        c -> {
          assertTrue(jobs.idOf(c, "k").isEmpty());
          assertTrue(jobs.enqueue(c, Job.of("a", "first").dedupeKey("k")));
          OptionalLong first = jobs.idOf(c, "k");
          assertFalse(jobs.enqueue(c, Job.of("a", "second").dedupeKey("k")));
          assertEquals(first, jobs.idOf(c, "k"));
        });
    assertEquals(1, Sql.count(ds, "SELECT COUNT(*) FROM postbox_jobs WHERE payload = 'first'"));
    Sql.commit(
        ds,
        c ->
            assertEquals(
                ((Number) Sql.value(ds, "SELECT id FROM postbox_jobs WHERE payload = 'first'"))
                    .longValue(),
                jobs.idOf(c, "k").orElseThrow()));
    assertEquals(1, count("1 = 1"));
    InvalidValueException e =
        assertThrows(
            InvalidValueException.class, () -> Sql.commit(ds, c -> jobs.idOf(c, " padded")));
    assertEquals("dedupeKey", e.field());
  }

  @Test
  void cancelDeletesAPendingADelayedAndAParkedJobAndFreesTheirKeys() throws Exception {
    long parked = enqueue(Job.of("broken", "parked").dedupeKey("parked").maxAttempts(1));
    Dispatcher d =
        started(
            dispatcher(
                Duration.ofMillis(10),
                JobHandler.of(
                    "broken",
                    job -> {
                      throw new IllegalStateException("always fails");
                    })));
    Await.until(WAIT, "the broken job parked", () -> count("state = 2") == 1);
    d.close();
    // enqueued with no dispatcher running: they stay pending
    long pending = enqueue(Job.of("never", "pending").dedupeKey("pending"));
    enqueue(Job.of("never", "delayed").dedupeKey("delayed").delay(Duration.ofHours(1)));
    assertEquals(2, count("state = 0"));

    Sql.commit(
        ds,
        c -> {
          assertTrue(jobs.cancel(c, pending));
          assertTrue(jobs.cancelByDedupeKey(c, "delayed"));
          assertTrue(jobs.cancel(c, parked));
          assertFalse(jobs.cancel(c, pending), "already cancelled");
          assertFalse(jobs.cancelByDedupeKey(c, "no-such-key"));
          assertFalse(jobs.cancel(c, -1));
        });
    assertEquals(0, count("1 = 1"));
    Sql.commit(
        ds,
        c -> {
          for (String key : List.of("pending", "delayed", "parked")) {
            assertTrue(jobs.enqueue(c, Job.of("never", key).dedupeKey(key)), key + " is free");
          }
        });
  }

  @Test
  void cancelDeletesAJobWaitingOnARetrysBackoffAndFreesItsKey() {
    JobHandler failing =
        JobHandler.of(
            "flaky",
            job -> {
              throw new IllegalStateException("down");
            });
    long id = enqueue(Job.of("flaky", "x").dedupeKey("flaky-1").maxAttempts(5));
    started(dispatcher(Duration.ofHours(1), failing));
    Await.until(
        WAIT,
        "the first attempt's failure",
        () -> count("attempts = 1 AND state = 0 AND leased_by IS NULL") == 1);

    Sql.commit(ds, c -> assertTrue(jobs.cancelByDedupeKey(c, "flaky-1")));
    assertEquals(0, count("id = " + id));
    Sql.commit(ds, c -> assertTrue(jobs.enqueue(c, Job.of("later", "y").dedupeKey("flaky-1"))));
  }

  @Test
  void aRunningJobIsNotCancelledAndFinishesNormally() throws Exception {
    CountDownLatch running = new CountDownLatch(1);
    CountDownLatch proceed = new CountDownLatch(1);
    JobHandler slow =
        JobHandler.of(
            "slow",
            job -> {
              running.countDown();
              proceed.await();
            });
    long id = enqueue(Job.of("slow", "x").dedupeKey("slow-1"));
    started(dispatcher(Duration.ofMillis(10), slow));
    assertTrue(running.await(60, TimeUnit.SECONDS));

    Sql.commit(
        ds,
        c -> {
          assertFalse(jobs.cancel(c, id));
          assertFalse(jobs.cancelByDedupeKey(c, "slow-1"));
        });
    proceed.countDown();
    Await.until(WAIT, "the job to finish", () -> count("state = 1") == 1);
  }

  @Test
  void aCancelRolledBackWithTheCallersTransactionLeavesTheJobToRun() {
    long id = enqueue(Job.of("kept", "x").dedupeKey("kept-1"));
    Sql.rollback(ds, c -> assertTrue(jobs.cancel(c, id)));
    assertEquals(1, count("id = " + id));

    List<JobContext> seen = new CopyOnWriteArrayList<>();
    started(dispatcher(Duration.ofMillis(10), JobHandler.of("kept", seen::add)));
    Await.until(WAIT, "the job to run", () -> count("state = 1") == 1);
    assertEquals(1, seen.size());
    assertEquals(id, seen.get(0).id());
  }

  @Test
  void aJobTableOfSchemaThreeIsRefusedUntilTheShippedUpgradeRuns() {
    // back to schema 3
    Sql.update(ds, "ALTER TABLE postbox_jobs DROP COLUMN due_at");
    Sql.update(ds, "ALTER TABLE postbox_jobs DROP COLUMN tick_at");
    Sql.update(ds, "DROP TABLE postbox_jobs_schedules");
    refusedNamingUntilUpgraded("due_at", "upgrade-3-to-4.sql");
  }

  @Test
  void tablesOfSchemaFiveAreRefusedUntilTheShippedUpgradeRuns() {
    // back to schema 5
    for (String index : List.of("postbox_jobs_waiting", "postbox_jobs_group_tail")) {
      Sql.update(
          ds, "DROP INDEX " + index + (db.database() == Database.MYSQL ? " ON postbox_jobs" : ""));
    }
    if (db.database() == Database.POSTGRESQL || db.database() == Database.SQLITE) {
      Sql.update(ds, "DROP INDEX postbox_jobs_admitted");
    }
    Sql.update(ds, "ALTER TABLE postbox_jobs DROP COLUMN grp");
    Sql.update(ds, "ALTER TABLE postbox_jobs DROP COLUMN fair_tag");
    Sql.update(ds, "ALTER TABLE postbox_jobs DROP COLUMN snoozes");
    Sql.update(ds, "ALTER TABLE postbox_outbox DROP COLUMN snoozes");
    Sql.update(ds, "DROP TABLE postbox_jobs_flow");
    refusedNamingUntilUpgraded("snoozes", "upgrade-5-to-6.sql");
    assertEquals(0, count("snoozes <> 0"));
  }

  /**
   * A job enqueued on the old tables; a dispatcher refused, its error naming {@code missing}; after
   * {@code script}, the job runs once.
   */
  private void refusedNamingUntilUpgraded(String missing, String script) {
    // enqueued as the old version did
    Sql.update(
        ds,
        "INSERT INTO postbox_jobs (name, payload, max_attempts, available_at, created_at)"
            + " VALUES ('upgraded', 'x', 5, "
            + Sql.nowPlusMillis(db)
            + ", "
            + Sql.nowPlusMillis(db)
            + ")",
        0,
        0);
    List<JobContext> seen = new CopyOnWriteArrayList<>();
    PostboxException refused =
        assertThrows(
            PostboxException.class,
            () ->
                dispatcher(Duration.ofMillis(10), JobHandler.of("upgraded", seen::add))
                    .build()
                    .start());
    assertTrue(refused.getMessage().contains(missing), refused.getMessage());

    db.runScript(db.sqlFolder().resolve(script));
    started(dispatcher(Duration.ofMillis(10), JobHandler.of("upgraded", seen::add)));
    Await.until(WAIT, "the job enqueued before the upgrade", () -> count("state = 1") == 1);
    assertEquals(1, seen.size());
  }
}
