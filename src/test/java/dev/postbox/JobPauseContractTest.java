package dev.postbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.postbox.internal.dialect.Dialects;
import dev.postbox.testing.AutoCommitAdvice;
import dev.postbox.testing.Await;
import dev.postbox.testing.Sql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Pausing a job name: durable, in the caller's transaction, honoured at every dispatcher's next
 * claim, never interrupting a running job, and shown by the stats per name; proven on every
 * database, subclasses only say which.
 */
public abstract class JobPauseContractTest extends DatabaseTest {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final String PAUSED = "sync-crm";
  private static final String OTHER = "send-invoice";

  private final Jobs jobs = Jobs.builder().build();
  private final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();

  @BeforeEach
  void noRunsYet() {
    runs.clear(); // one instance runs every test of the class
  }

  private JobHandler counting(String name) {
    return JobHandler.of(
        name, payload -> runs.computeIfAbsent(name, n -> new AtomicInteger()).incrementAndGet());
  }

  private int runs(String name) {
    AtomicInteger n = runs.get(name);
    return n == null ? 0 : n.get();
  }

  private Dispatcher.Builder dispatcher() {
    return jobDispatcher(jobs, counting(PAUSED), counting(OTHER));
  }

  private void enqueue(String name, int n) {
    Sql.commit(
        ds,
        c -> {
          for (int i = 0; i < n; i++) {
            assertTrue(jobs.enqueue(c, Job.of(name, "{}")));
          }
        });
  }

  /** Enqueues one job of {@link #OTHER}, after the jobs enqueued before, and waits until it ran. */
  private void anotherNameRuns(Dispatcher... dispatchers) throws InterruptedException {
    int before = runs(OTHER);
    enqueue(OTHER, 1);
    Await.until(WAIT, "the job of another name", () -> runs(OTHER) == before + 1);
    for (Dispatcher d : dispatchers) {
      assertTrue(d.awaitIdle(WAIT), "idle");
    }
  }

  private long count(String sql) {
    return Sql.count(ds, sql);
  }

  private long waiting(String name) {
    return count(
        "SELECT COUNT(*) FROM postbox_jobs WHERE name = '"
            + name
            + "' AND state = 0"
            + " AND attempts = 0 AND leased_by IS NULL");
  }

  private List<String> paused() throws Exception {
    try (Connection c = ds.getConnection()) {
      return jobs.paused(c);
    }
  }

  private List<JobNameStats> stats() throws Exception {
    try (Connection c = ds.getConnection()) {
      return jobs.statsByName(c);
    }
  }

  @Test
  void aPausedNamesJobsWaitWhileLaterJobsOfOtherNamesRunAndRunOnceItIsResumed() throws Exception {
    Sql.commit(ds, c -> jobs.pause(c, PAUSED));
    enqueue(PAUSED, 3);
    Dispatcher d = started(dispatcher());
    anotherNameRuns(d);

    assertEquals(0, runs(PAUSED));
    assertEquals(3, waiting(PAUSED));
    assertEquals(List.of(PAUSED), paused());
    assertEquals(List.of(new JobNameStats(PAUSED, 3, 0, 0, null, true, 0)), stats());

    Sql.commit(ds, c -> jobs.resume(c, PAUSED));
    Await.until(WAIT, "the resumed name's jobs", () -> runs(PAUSED) == 3);
    assertTrue(d.awaitIdle(WAIT));
    assertEquals(3, runs(PAUSED), "each once");
    assertEquals(List.of(), paused());
    assertEquals(List.of(), stats());
  }

  @Test
  void thePauseOfARunningDispatcherTakesEffectAtItsNextClaimAndStatsShowAPausedNameWithoutJobs()
      throws Exception {
    Dispatcher d = started(dispatcher());
    anotherNameRuns(d);
    Sql.commit(ds, c -> jobs.pause(c, PAUSED));
    assertEquals(List.of(new JobNameStats(PAUSED, 0, 0, 0, null, true, 0)), stats());

    enqueue(PAUSED, 2);
    anotherNameRuns(d);
    assertEquals(0, runs(PAUSED));
    assertEquals(2, waiting(PAUSED));
    JobNameStats s = stats().get(0);
    assertEquals(2, s.pending());
    assertEquals(0, s.due());
    assertNull(s.oldestDueAt());
    assertTrue(s.paused());
  }

  @Test
  void aPauseSurvivesARestartOfTheDispatcher() throws Exception {
    Sql.commit(ds, c -> jobs.pause(c, PAUSED));
    enqueue(PAUSED, 2);
    Dispatcher first = started(dispatcher());
    anotherNameRuns(first);
    first.close();

    Dispatcher second = started(dispatcher());
    anotherNameRuns(second);
    assertEquals(0, runs(PAUSED));
    assertEquals(2, waiting(PAUSED));
    assertEquals(List.of(PAUSED), paused());

    Sql.commit(ds, c -> jobs.resume(c, PAUSED));
    Await.until(WAIT, "the resumed name's jobs", () -> runs(PAUSED) == 2);
  }

  @Test
  void aResumeWakesTheDispatchersOfATableThatNotifiesThem() throws Exception {
    // behind a transaction pooler the LISTEN falls back to polling (PgBouncerNotifyTest)
    assumeTrue(
        db.database() == Database.POSTGRESQL && !db.behindTransactionPooler(),
        "NOTIFY needs PostgreSQL and a session of its own");
    Jobs notifying = Jobs.builder().notifyDispatchers(true).build();
    Sql.commit(ds, c -> notifying.pause(c, PAUSED));
    enqueue(PAUSED, 1);
    // polls once an hour: only the resume's notification can make it claim the job in time
    Dispatcher d =
        started(jobDispatcher(notifying, counting(PAUSED)).pollInterval(Duration.ofHours(1)));
    assertTrue(d.awaitIdle(WAIT));
    assertEquals(0, runs(PAUSED));

    Sql.commit(ds, c -> notifying.resume(c, PAUSED));
    Await.until(WAIT, "the resumed name's job", () -> runs(PAUSED) == 1);
  }

  @Test
  void aPauseOrResumeRolledBackChangesNothing() throws Exception {
    Sql.rollback(ds, c -> jobs.pause(c, PAUSED));
    assertEquals(List.of(), paused());
    assertEquals(0, count("SELECT COUNT(*) FROM postbox_jobs_flow"));

    Sql.commit(ds, c -> jobs.pause(c, OTHER));
    Sql.rollback(ds, c -> jobs.resume(c, OTHER));
    assertEquals(List.of(OTHER), paused());

    enqueue(PAUSED, 1);
    started(dispatcher());
    Await.until(
        WAIT, "the job of the name paused in a rolled-back transaction", () -> runs(PAUSED) == 1);
    assertEquals(0, runs(OTHER));
  }

  @Test
  void aPauseNeverInterruptsARunningJob() throws Exception {
    CountDownLatch running = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    AtomicBoolean interrupted = new AtomicBoolean();
    AtomicInteger slowRuns = new AtomicInteger();
    JobHandler slow =
        JobHandler.of(
            PAUSED,
            payload -> {
              slowRuns.incrementAndGet();
              running.countDown();
              try {
                assertTrue(release.await(60, TimeUnit.SECONDS));
              } catch (InterruptedException e) {
                interrupted.set(true);
                throw e;
              }
            });
    enqueue(PAUSED, 1);
    Dispatcher d = started(jobDispatcher(jobs, slow, counting(OTHER)));
    assertTrue(running.await(60, TimeUnit.SECONDS), "the job started");

    Sql.commit(ds, c -> jobs.pause(c, PAUSED));
    release.countDown();
    Await.until(
        WAIT,
        "the running job to finish",
        () -> count("SELECT COUNT(*) FROM postbox_jobs WHERE state = 1") == 1);
    assertTrue(d.awaitIdle(WAIT));
    assertEquals(1, slowRuns.get(), "runs");
    assertFalse(interrupted.get(), "interrupted");
    assertEquals(List.of(PAUSED), paused());
  }

  @Test
  void twoRunningDispatchersBothHonourAPause() throws Exception {
    Dispatcher a = started(dispatcher());
    Dispatcher b = started(dispatcher());
    anotherNameRuns(a, b);

    Sql.commit(ds, c -> jobs.pause(c, PAUSED));
    enqueue(PAUSED, 10);
    enqueue(OTHER, 20);
    Await.until(WAIT, "the jobs of the other name", () -> runs(OTHER) == 21);
    // each dispatcher's claims after this found nothing: none took the paused name's jobs
    assertTrue(a.awaitIdle(WAIT));
    assertTrue(b.awaitIdle(WAIT));
    assertEquals(0, runs(PAUSED));
    assertEquals(10, waiting(PAUSED));

    Sql.commit(ds, c -> jobs.resume(c, PAUSED));
    Await.until(WAIT, "the resumed name's jobs", () -> runs(PAUSED) == 10);
    assertTrue(a.awaitIdle(WAIT));
    assertTrue(b.awaitIdle(WAIT));
    assertEquals(10, runs(PAUSED), "each once");
  }

  @Test
  void aPauseWhoseRowAnotherTransactionHoldsStillHoldsAndAPauseNotCommittedDoesNotYet()
      throws Exception {
    // SQLite has no row locks: a transaction that writes holds the whole database
    assumeTrue(db.database() != Database.SQLITE, "row locks");
    Sql.commit(ds, c -> jobs.pause(c, PAUSED));
    enqueue(PAUSED, 2);
    Dispatcher d = started(dispatcher());
    try (Connection holder = ds.getConnection()) {
      holder.setAutoCommit(false);
      jobs.resume(holder, PAUSED); // deletes the row: locked until the rollback
      jobs.pause(holder, OTHER); // a new row, locked and not committed
      anotherNameRuns(d);
      assertEquals(0, runs(PAUSED));
      assertEquals(2, waiting(PAUSED));
      holder.rollback();
    }
    anotherNameRuns(d);
    assertEquals(0, runs(PAUSED));
    assertEquals(List.of(PAUSED), paused());
  }

  @Test
  void pausingTwiceKeepsTheFirstPauseAndPausedListsEachNameOnceSorted() throws Exception {
    Sql.commit(ds, c -> jobs.pause(c, "b-name"));
    Instant first = pausedAt("b-name");
    Await.until(WAIT, "the database clock to move on", () -> Sql.dbNow(ds, db).isAfter(first));
    Sql.commit(
        ds,
        c -> {
          jobs.pause(c, "c-name");
          jobs.pause(c, "b-name");
          jobs.pause(c, "A-name");
          jobs.pause(c, "c-name");
        });
    assertEquals(first, pausedAt("b-name"));
    assertEquals(List.of("A-name", "b-name", "c-name"), paused());
    assertEquals(3, count("SELECT COUNT(*) FROM postbox_jobs_flow"));

    Sql.commit(
        ds,
        c -> {
          jobs.resume(c, "never-paused");
          jobs.resume(c, "b-name");
          jobs.resume(c, "b-name");
        });
    assertEquals(List.of("A-name", "c-name"), paused());
  }

  private Instant pausedAt(String name) throws Exception {
    try (Connection c = ds.getConnection();
        PreparedStatement ps =
            c.prepareStatement("SELECT paused_at FROM postbox_jobs_flow WHERE name = ?")) {
      ps.setString(1, name);
      try (ResultSet rs = ps.executeQuery()) {
        assertTrue(rs.next());
        return Dialects.of(db.database()).readInstant(rs, "paused_at");
      }
    }
  }

  @Test
  void badNamesAndAutoCommitAreRefusedAndNothingIsWritten() throws Exception {
    String tooLong = "a".repeat(201);
    for (String bad : new String[] {null, "", " ", "bad name", "-starts-with-dash", tooLong}) {
      Sql.commit(
          ds,
          c -> {
            assertEquals(
                "name",
                assertThrows(InvalidValueException.class, () -> jobs.pause(c, bad)).field());
            assertEquals(
                "name",
                assertThrows(InvalidValueException.class, () -> jobs.resume(c, bad)).field());
          });
    }
    assertEquals(
        "connection",
        assertThrows(InvalidValueException.class, () -> jobs.pause(null, PAUSED)).field());
    assertEquals(
        "connection", assertThrows(InvalidValueException.class, () -> jobs.paused(null)).field());
    AutoCommitAdvice.assertGivenBy(ds, c -> jobs.pause(c, PAUSED));
    AutoCommitAdvice.assertGivenBy(ds, c -> jobs.resume(c, PAUSED));
    assertEquals(0, count("SELECT COUNT(*) FROM postbox_jobs_flow"));

    Jobs allowing = Jobs.builder().allowAutoCommit(true).build();
    try (Connection c = ds.getConnection()) {
      c.setAutoCommit(true);
      allowing.pause(c, PAUSED);
    }
    assertEquals(List.of(PAUSED), paused());
  }
}
