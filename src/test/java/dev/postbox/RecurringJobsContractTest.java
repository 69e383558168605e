package dev.postbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.StoredSchedule.LastRun;
import dev.postbox.internal.dialect.Dialects;
import dev.postbox.testing.Await;
import dev.postbox.testing.JdbcProxy;
import dev.postbox.testing.RecordingTransport;
import dev.postbox.testing.RecurringClock;
import dev.postbox.testing.Sql;
import dev.postbox.testing.Threads;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Recurring jobs, proven on every database with a schedule that ticks every second: one run per
 * tick across dispatchers, missed ticks, changed and removed schedules, no overlapping runs,
 * failures. Subclasses only say which database.
 *
 * <p>The engine judges ticks by a {@link RecurringClock} the test stops and advances, so that each
 * tick comes when the test says and the ticks a run gets are known exactly. One test, {@link
 * #everyRunsTheDelayAfterThePreviousRunEnded}, runs on the database's own clock in real time. Tests
 * of {@code every} whose next tick is timed from a run's end (stamped by the database clock) move
 * that tick into the past in the schedules table once they have checked it.
 */
public abstract class RecurringJobsContractTest extends DatabaseTest {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final Schedule EVERY_SECOND = Schedule.cron("* * * * * *");

  private final Jobs jobs = Jobs.builder().build();
  private RecurringClock clock;

  @BeforeEach
  void stoppedClock() {
    clock = new RecurringClock(ds, db);
  }

  /** A dispatcher whose recurring jobs judge by the test's {@link #clock}. */
  private Dispatcher.Builder dispatcher(Jobs jobs, JobHandler... handlers) {
    return dispatcher(clock.dataSource(), jobs, handlers);
  }

  private Dispatcher.Builder dispatcher(DataSource dataSource, Jobs jobs, JobHandler... handlers) {
    return Dispatcher.builder(dataSource)
        .jobs(jobs, handlers)
        .instanceId(nextInstanceId())
        .pollInterval(Duration.ofMillis(200))
        .backoff(Backoff.fixed(Duration.ofMillis(10)))
        .shutdownTimeout(Duration.ofSeconds(10));
  }

  /** Runs of "slow" that wait until released, counting how many run at once. */
  private static final class HeldRuns {
    final AtomicInteger running = new AtomicInteger();
    final AtomicInteger mostAtOnce = new AtomicInteger();
    final CountDownLatch firstStarted = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);
    final List<JobContext> runs = new CopyOnWriteArrayList<>();
    final JobHandler handler =
        JobHandler.of(
            "slow",
            job -> {
              mostAtOnce.accumulateAndGet(running.incrementAndGet(), Math::max);
              try {
                firstStarted.countDown();
                release.await();
                runs.add(job);
              } finally {
                running.decrementAndGet();
              }
            });
  }

  /** A handler of "failing" that records each attempt and fails it. */
  private static JobHandler failing(List<JobContext> attempts) {
    return JobHandler.of(
        "failing",
        job -> {
          attempts.add(job);
          throw new IllegalStateException("partner down");
        });
  }

  private List<StoredSchedule> schedules() {
    List<List<StoredSchedule>> out = new ArrayList<>();
    Sql.commit(ds, c -> out.add(jobs.schedules(c)));
    return out.get(0);
  }

  /** Moves the engine's clock one second on: one tick of {@link #EVERY_SECOND}. */
  private void tick() {
    clock.advance(Duration.ofSeconds(1));
  }

  /** The first tick of {@link #EVERY_SECOND} after {@code t}. */
  private static Instant nextSecond(Instant t) {
    return t.truncatedTo(ChronoUnit.SECONDS).plusSeconds(1);
  }

  private static void awaitSize(List<?> list, int size, String what) {
    Await.until(WAIT, what, () -> list.size() >= size);
  }

  /**
   * Waits until the engine stored the next tick of {@code every}, timed from its last run's end.
   */
  private StoredSchedule awaitTimedFromTheEnd() {
    Await.until(
        WAIT,
        "the next tick timed from the last run's end",
        () -> schedules().get(0).nextTick().isAfter(schedules().get(0).lastTick()));
    return schedules().get(0);
  }

  /** Makes the stored next tick due now by the database clock. */
  private void makeDue() {
    Sql.update(ds, "UPDATE postbox_jobs_schedules SET next_tick = " + Sql.nowPlusMillis(db), -1L);
  }

  private long jobRows() {
    return Sql.count(ds, "SELECT COUNT(*) FROM postbox_jobs");
  }

  /** The id of the one job that matches {@code where}, once there is one. */
  private long awaitJob(String what, String where) {
    String query = "SELECT MIN(id) FROM postbox_jobs WHERE " + where;
    Await.until(WAIT, what, () -> Sql.value(ds, query) != null);
    return ((Number) Sql.value(ds, query)).longValue();
  }

  @Test
  void aScheduleDeclaredByThreeDispatchersRunsExactlyOncePerTick() {
    List<JobContext> runs = new CopyOnWriteArrayList<>();
    JobHandler handler = JobHandler.of("tick", runs::add);
    Instant first = nextSecond(clock.now());
    List<Dispatcher> three = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      three.add(started(dispatcher(jobs, handler).recurring(EVERY_SECOND, "tick", "{}")));
    }
    List<Instant> expected = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      tick();
      expected.add(first.plusSeconds(i));
      awaitSize(runs, i + 1, "the run of tick " + (i + 1));
    }
    three.forEach(Dispatcher::close);

    Map<Instant, Integer> perTick = new TreeMap<>();
    for (JobContext run : runs) {
      perTick.merge(run.tick(), 1, Integer::sum);
      assertFalse(run.dueAt().isBefore(run.tick()), "due " + run.dueAt() + " before its tick");
    }
    assertEquals(runs.size(), perTick.size(), "ticks with two runs: " + perTick);
    assertEquals(expected, new ArrayList<>(perTick.keySet()), "one run for each tick, none missed");
    assertEquals(10, jobRows(), "runs enqueued");
  }

  /**
   * Dispatchers starting at the same moment on a table that does not yet hold the schedule: each
   * one's read finds nothing and each inserts. On MariaDB the locking reads of a missing row take
   * gap locks and the inserts deadlock; the loser must read again, not fail to start.
   */
  @Test
  void dispatchersStartingAtOnceWithANewScheduleAllStartAndStoreItOnce() throws Exception {
    int rounds = 5;
    int perRound = 4;
    for (int round = 0; round < rounds; round++) {
      String name = "fresh-" + round;
      List<Dispatcher> built = new ArrayList<>();
      for (int i = 0; i < perRound; i++) {
        built.add(
            built(
                dispatcher(jobs, JobHandler.of(name, run -> {}))
                    .recurring(Schedule.cron("0 0 0 1 1 *"), name, "{}")));
      }
      CyclicBarrier together = new CyclicBarrier(perRound);
      List<Throwable> failures = new CopyOnWriteArrayList<>();
      List<Thread> starters = new ArrayList<>();
      for (Dispatcher d : built) {
        starters.add(
            Thread.ofPlatform()
                .start(
                    () -> {
                      try {
                        together.await();
                        d.start();
                      } catch (Throwable e) {
                        failures.add(e);
                      }
                    }));
      }
      for (Thread t : starters) {
        t.join();
      }
      assertEquals(List.of(), failures, "dispatchers that failed to start in round " + round);
      built.forEach(Dispatcher::close);
    }
    assertEquals(rounds, schedules().size(), "schedules stored: " + schedules());
  }

  @Test
  void ticksMissedWhileEveryDispatcherWasDownRunOnceThenTheScheduleGoesOn() {
    List<JobContext> runs = new CopyOnWriteArrayList<>();
    JobHandler handler = JobHandler.of("tick", runs::add);
    Instant firstTick = nextSecond(clock.now());
    Dispatcher first = started(dispatcher(jobs, handler).recurring(EVERY_SECOND, "tick", "{}"));
    tick();
    awaitSize(runs, 1, "a first run");
    first.close();
    runs.clear();
    // down for ten ticks: the stored next tick is ten seconds old when a dispatcher starts again
    clock.advance(Duration.ofSeconds(10));
    Instant restart = clock.now();

    started(dispatcher(jobs, handler).recurring(EVERY_SECOND, "tick", "{}"));
    awaitSize(runs, 1, "the run for the missed ticks");
    tick();
    awaitSize(runs, 2, "a run after the restart");
    tick();
    awaitSize(runs, 3, "two runs after the restart");

    List<Instant> ticks = runs.stream().map(JobContext::tick).sorted().toList();
    assertEquals(
        List.of(firstTick.plusSeconds(1), nextSecond(restart), nextSecond(restart).plusSeconds(1)),
        ticks,
        "one run for the missed ticks, then new ones");
    assertTrue(ticks.get(0).isBefore(restart.minusSeconds(9)), "the missed run: " + ticks);
  }

  @Test
  void aChangedExpressionTakesEffectWhenADispatcherStarts() {
    List<JobContext> runs = new CopyOnWriteArrayList<>();
    JobHandler handler = JobHandler.of("tick", runs::add);
    started(dispatcher(jobs, handler).recurring(Schedule.cron("0 0 1 1 *"), "tick", "{}")).close();
    StoredSchedule yearly = schedules().get(0);
    assertEquals("cron 0 0 1 1 * Z", yearly.schedule());
    assertTrue(yearly.nextTick().isAfter(clock.now().plus(Duration.ofDays(1))));
    assertEquals(LastRun.NONE, yearly.lastRun());

    Instant first = nextSecond(clock.now());
    started(dispatcher(jobs, handler).recurring(EVERY_SECOND, "tick", "{\"v\":2}"));
    tick();
    awaitSize(runs, 1, "a run on the new schedule");
    tick();
    awaitSize(runs, 2, "two runs on the new schedule");
    StoredSchedule changed = schedules().get(0);
    assertEquals("cron * * * * * * Z", changed.schedule());
    assertEquals("{\"v\":2}", changed.payload());
    assertEquals(first.plusSeconds(2), changed.nextTick());
    assertEquals(
        List.of(first, first.plusSeconds(1)), runs.stream().map(JobContext::tick).toList());
    assertEquals("{\"v\":2}", runs.get(0).payload());
  }

  @Test
  void aRunThatIsStillRunningDelaysTheNextTickAndRunsNeverOverlap() throws Exception {
    HeldRuns held = new HeldRuns();
    Instant first = nextSecond(clock.now());
    Dispatcher d = started(dispatcher(jobs, held.handler).recurring(EVERY_SECOND, "slow", "{}"));
    tick();
    assertTrue(held.firstStarted.await(60, TimeUnit.SECONDS));
    clock.advance(Duration.ofSeconds(3)); // three ticks pass while the first run runs
    clock.awaitStep(d.instanceId());
    assertEquals(LastRun.RUNNING, schedules().get(0).lastRun());
    assertEquals(1, jobRows(), "no run enqueued while the first runs");

    held.release.countDown();
    awaitSize(held.runs, 2, "the delayed tick's run");
    tick();
    awaitSize(held.runs, 3, "three runs");
    assertEquals(1, held.mostAtOnce.get(), "runs at once");
    List<Instant> ticks = held.runs.stream().map(JobContext::tick).toList();
    // the first; the delayed tick; then the first tick after the delayed run was enqueued: the
    // ticks missed while the first ran made no run of their own
    assertEquals(List.of(first, first.plusSeconds(1), first.plusSeconds(4)), ticks);
  }

  @Test
  void aStoredScheduleThatNoDispatcherDeclaresDoesNotRunAndCanBeRemoved() {
    List<JobContext> runs = new CopyOnWriteArrayList<>();
    JobHandler handler = JobHandler.of("tick", runs::add);
    Dispatcher declaring = started(dispatcher(jobs, handler).recurring(EVERY_SECOND, "tick", "{}"));
    tick();
    awaitSize(runs, 1, "a run");
    declaring.close();
    long enqueued = jobRows();

    // the same handler, and a schedule of its own: its engine steps while "tick" is due
    Dispatcher other =
        started(
            dispatcher(jobs, handler, JobHandler.of("yearly", run -> {}))
                .recurring(Schedule.cron("0 0 0 1 1 *"), "yearly", "{}"));
    clock.advance(Duration.ofSeconds(2));
    clock.awaitStep(other.instanceId());
    assertEquals(enqueued, jobRows(), "runs enqueued by a dispatcher that does not declare it");
    assertEquals(
        List.of("tick", "yearly"),
        schedules().stream().map(StoredSchedule::name).sorted().toList());
    Sql.commit(
        ds,
        c -> {
          assertTrue(jobs.removeSchedule(c, "tick"));
          assertFalse(jobs.removeSchedule(c, "tick"));
        });
    assertEquals(List.of("yearly"), schedules().stream().map(StoredSchedule::name).toList());
  }

  @Test
  void aScheduleRemovedWhileADispatcherDeclaresItStopsUntilOneStartsWithItAgain() {
    List<JobContext> runs = new CopyOnWriteArrayList<>();
    JobHandler handler = JobHandler.of("tick", runs::add);
    Dispatcher d = started(dispatcher(jobs, handler).recurring(EVERY_SECOND, "tick", "{}"));
    tick();
    awaitSize(runs, 1, "a run");
    Sql.commit(ds, c -> assertTrue(jobs.removeSchedule(c, "tick")));
    long enqueued = jobRows();

    clock.advance(Duration.ofSeconds(2));
    clock.awaitStep(d.instanceId());
    assertEquals(enqueued, jobRows(), "runs enqueued after the schedule was removed");
    assertTrue(schedules().isEmpty());

    started(dispatcher(jobs, handler).recurring(EVERY_SECOND, "tick", "{}"));
    tick();
    Await.until(WAIT, "a run after a dispatcher declared it again", () -> jobRows() > enqueued);
    assertEquals(1, schedules().size());
  }

  @Test
  void aFailingRunRetriesAndParksLikeAnyJobAndTheNextTickStillRuns() throws Exception {
    Jobs twoAttempts = Jobs.builder().maxAttempts(2).build();
    List<JobContext> attempts = new CopyOnWriteArrayList<>();
    JobHandler failing = failing(attempts);
    Instant first = nextSecond(clock.now());
    started(dispatcher(twoAttempts, failing).recurring(EVERY_SECOND, "failing", "{}"));
    for (int parked = 1; parked <= 2; parked++) {
      tick();
      int n = parked;
      Await.until(
          WAIT,
          parked + " runs parked",
          () -> Sql.count(ds, "SELECT COUNT(*) FROM postbox_jobs WHERE state = 2") >= n);
    }

    Map<Long, List<JobContext>> byJob = new TreeMap<>();
    for (JobContext a : attempts) {
      byJob.computeIfAbsent(a.id(), k -> new ArrayList<>()).add(a);
    }
    List<List<JobContext>> parkedRuns =
        byJob.values().stream().filter(l -> l.size() == 2).limit(2).toList();
    assertEquals(2, parkedRuns.size(), "runs with both attempts: " + byJob);
    for (List<JobContext> run : parkedRuns) {
      assertEquals(1, run.get(0).attempt());
      assertEquals(2, run.get(1).attempt());
      assertTrue(run.get(1).lastAttempt());
      assertEquals(run.get(0).tick(), run.get(1).tick(), "a retry keeps its run's tick");
    }
    assertEquals(first, parkedRuns.get(0).get(0).tick());
    assertEquals(first.plusSeconds(1), parkedRuns.get(1).get(0).tick());
  }

  /**
   * The one test on the database's own clock, in real time: the engine reads it, and the job lane
   * stamps each run's end with it, from which {@code every} times the next run.
   */
  @Test
  void everyRunsTheDelayAfterThePreviousRunEnded() throws Exception {
    List<JobContext> runs = new CopyOnWriteArrayList<>();
    JobHandler handler = JobHandler.of("poll", runs::add);
    started(
        dispatcher(ds, jobs, handler)
            .recurring(Schedule.every(Duration.ofSeconds(1)), "poll", "{}"));
    Await.until(WAIT, "three runs", () -> runs.size() >= 3);
    Await.until(
        WAIT,
        "the third run finished",
        () -> Sql.count(ds, "SELECT COUNT(*) FROM postbox_jobs WHERE state = 1") >= 3);

    for (int i = 1; i < 3; i++) {
      Instant previousEnded = finishedAt(runs.get(i - 1).id());
      assertEquals(previousEnded.plusSeconds(1), runs.get(i).tick(), "run " + (i + 1) + "'s tick");
      assertFalse(runs.get(i).dueAt().isBefore(runs.get(i).tick()));
    }
  }

  /**
   * Regression: a run deleted as it succeeded (retention zero) stopped its schedule for good: each
   * step took the missing row's end for "now" and moved the tick to now + d, for ever. The next
   * tick is d after the step first saw the row gone, and when it comes the run is enqueued.
   */
  @Test
  void everyRunsAgainTheDelayAfterARunDeletedAsItSucceeded() {
    Jobs deletedWhenDone = Jobs.builder().retention(Duration.ZERO).build();
    List<JobContext> runs = new CopyOnWriteArrayList<>();
    JobHandler handler = JobHandler.of("poll", runs::add);
    started(
        dispatcher(ds, deletedWhenDone, handler)
            .recurring(Schedule.every(Duration.ofHours(1)), "poll", "{}"));
    Await.until(WAIT, "the first run, deleted when done", () -> runs.size() == 1 && jobRows() == 0);
    StoredSchedule waiting = awaitTimedFromTheEnd();
    assertEquals(LastRun.GONE, waiting.lastRun());
    assertFalse(waiting.nextTick().isBefore(runs.get(0).tick().plusSeconds(3600)), "too soon");
    assertFalse(waiting.nextTick().isAfter(Sql.dbNow(ds, db).plusSeconds(3600)), "too late");

    makeDue(); // the hour passes
    Instant due = schedules().get(0).nextTick();
    Await.until(WAIT, "the run due an hour after the deleted one ended", () -> runs.size() == 2);
    assertEquals(due, runs.get(1).tick());
  }

  /**
   * Regression: the retention cleanup deleted each run's kept row before the schedule's next tick
   * (its delay longer than the retention), and the schedule stopped for good as above. Each next
   * tick, once the cleanup deleted the run, is the delay after the run; the test then makes it due.
   */
  @Test
  void everyGoesOnWhenTheCleanupDeletesEachRunBeforeTheNextTick() {
    Jobs keptBriefly = Jobs.builder().retention(Duration.ofMillis(300)).build();
    List<JobContext> runs = new CopyOnWriteArrayList<>();
    JobHandler handler = JobHandler.of("poll", runs::add);
    started(
        dispatcher(ds, keptBriefly, handler)
            .cleanupInterval(Duration.ofMillis(50))
            .recurring(Schedule.every(Duration.ofSeconds(2)), "poll", "{}"));
    for (int run = 1; run <= 3; run++) {
      int n = run;
      Await.until(
          WAIT,
          "run " + run + ", deleted by the cleanup",
          () -> runs.size() == n && jobRows() == 0);
      StoredSchedule waiting = awaitTimedFromTheEnd();
      assertEquals(LastRun.GONE, waiting.lastRun());
      Instant tick = runs.get(run - 1).tick();
      assertFalse(
          waiting.nextTick().isBefore(tick.plusSeconds(2)), "run " + (run + 1) + " too soon");
      assertFalse(waiting.nextTick().isAfter(Sql.dbNow(ds, db).plusSeconds(2)), "too late");
      makeDue(); // the delay passes
    }
    Await.until(WAIT, "a fourth run", () -> runs.size() >= 4);
  }

  /**
   * Regression: cancelling a run that waited for its retry's backoff stopped its schedule for good
   * (the cancelled row is gone, as a deleted one).
   */
  @Test
  void everyGoesOnAfterItsRetryingRunIsCancelled() {
    List<JobContext> attempts = new CopyOnWriteArrayList<>();
    JobHandler failing = failing(attempts);
    Instant first = clock.now(); // every's first run is due when it is stored
    started(
        dispatcher(jobs, failing)
            .backoff(Backoff.fixed(Duration.ofHours(1)))
            .recurring(Schedule.every(Duration.ofSeconds(1)), "failing", "{}"));
    List<Long> cancelled = new ArrayList<>();
    for (int run = 1; run <= 3; run++) {
      long id =
          awaitJob(
              "run " + run + " waiting for its retry",
              "attempts = 1 AND state = 0 AND leased_by IS NULL");
      Sql.commit(ds, c -> assertTrue(jobs.cancel(c, id)));
      cancelled.add(id);
      // gone: the next run is due the delay after the engine found it gone
      assertEquals(clock.now().plusSeconds(1), awaitTimedFromTheEnd().nextTick());
      if (run < 3) {
        tick(); // not after the third: a fourth run would race the checks below
      }
    }
    assertTrue(attempts.stream().allMatch(a -> a.attempt() == 1), "retries ran: " + attempts);
    assertEquals(3, cancelled.stream().distinct().count(), "runs cancelled: " + cancelled);
    assertEquals(
        List.of(first, first.plusSeconds(1), first.plusSeconds(2)),
        attempts.stream().map(JobContext::tick).toList());
  }

  /**
   * Regression: discarding a parked run stopped its schedule for good (the discarded row is gone,
   * as a deleted one). The next tick, timed from the parked run's end or from when the engine found
   * it gone, is made due by the test.
   */
  @Test
  void everyGoesOnAfterItsParkedRunIsDiscarded() {
    Jobs oneAttempt = Jobs.builder().maxAttempts(1).build();
    List<JobContext> attempts = new CopyOnWriteArrayList<>();
    JobHandler failing = failing(attempts);
    started(
        dispatcher(ds, oneAttempt, failing)
            .recurring(Schedule.every(Duration.ofSeconds(5)), "failing", "{}"));
    long parked = awaitJob("the first run parked", "state = 2");
    Sql.commit(ds, c -> assertTrue(oneAttempt.discard(c, parked)));
    assertEquals(0, jobRows(), "runs besides the discarded one, before it was discarded");
    StoredSchedule waiting = awaitTimedFromTheEnd();
    assertFalse(waiting.nextTick().isBefore(attempts.get(0).tick().plusSeconds(5)), "too soon");
    assertFalse(waiting.nextTick().isAfter(Sql.dbNow(ds, db).plusSeconds(5)), "too late");

    makeDue(); // the delay passes
    Await.until(WAIT, "a run after the parked one was discarded", () -> attempts.size() >= 2);
    assertTrue(attempts.get(1).id() > parked);
  }

  /**
   * Regression: removing a schedule dropped its last run with it; a dispatcher that declared the
   * schedule again (another instance, or this one restarted while the old process still ran the
   * job) stored a new row with no run to wait for and enqueued one while the old one ran.
   */
  @Test
  void aScheduleRemovedAndDeclaredAgainWaitsForTheRunStillGoing() throws Exception {
    HeldRuns held = new HeldRuns();
    Instant first = nextSecond(clock.now());
    Dispatcher one = started(dispatcher(jobs, held.handler).recurring(EVERY_SECOND, "slow", "{}"));
    tick();
    assertTrue(held.firstStarted.await(60, TimeUnit.SECONDS));
    Sql.commit(ds, c -> assertTrue(jobs.removeSchedule(c, "slow")));

    Dispatcher two = started(dispatcher(jobs, held.handler).recurring(EVERY_SECOND, "slow", "{}"));
    clock.advance(Duration.ofSeconds(2)); // two ticks pass while the first run runs
    clock.awaitStep(one.instanceId());
    clock.awaitStep(two.instanceId());
    assertEquals(1, jobRows(), "runs enqueued while the first still runs");
    assertEquals(LastRun.RUNNING, schedules().get(0).lastRun());

    held.release.countDown();
    awaitSize(held.runs, 2, "the delayed tick's run");
    tick();
    awaitSize(held.runs, 3, "three runs");
    assertEquals(1, held.mostAtOnce.get(), "runs at once");
    assertEquals(
        List.of(first, first.plusSeconds(1), first.plusSeconds(3)),
        held.runs.stream().map(JobContext::tick).toList());
  }

  /**
   * Regression (SQLite): storing a schedule ran {@code BEGIN IMMEDIATE} on a pooled connection as
   * handed out, inside the transaction a pool configured with auto-commit off had opened, and the
   * dispatcher failed to start.
   */
  @Test
  void recurringJobsRunOnAPoolThatHandsOutConnectionsInATransaction() {
    List<JobContext> runs = new CopyOnWriteArrayList<>();
    try (HikariDataSource inTransaction = db.pool(4, false)) {
      Dispatcher d =
          started(
              dispatcher(clock.dataSource(inTransaction), jobs, JobHandler.of("tick", runs::add))
                  .recurring(EVERY_SECOND, "tick", "{}"));
      tick();
      awaitSize(runs, 1, "a run");
      tick();
      awaitSize(runs, 2, "two runs");
      d.close();
    }
    assertEquals(1, schedules().size());
  }

  /**
   * Regression: {@code Dispatcher.start} started its lanes before storing the declared schedules;
   * when storing one failed, start threw but the lanes went on claiming and delivering until {@code
   * close()}. A start that throws leaves nothing running and no row leased, and may be called
   * again.
   */
  @Test
  void aStartThatFailsStoringAScheduleLeavesNothingRunningAndCanBeCalledAgain() throws Exception {
    Outbox outbox = Outbox.builder().build();
    Sql.commit(
        ds,
        c -> {
          for (int i = 0; i < 10; i++) {
            outbox.add(c, Message.of("t", "{}").eventId("m-" + i));
            jobs.enqueue(c, Job.of("work", "{}"));
          }
        });
    AtomicBoolean failing = new AtomicBoolean(true);
    DataSource faulty = JdbcProxy.wrappingConnections(ds, c -> failingScheduleInserts(c, failing));
    RecordingTransport transport = new RecordingTransport();
    AtomicInteger worked = new AtomicInteger();
    String id = nextInstanceId();
    Dispatcher d =
        built(
            dispatcher(
                    faulty,
                    jobs,
                    JobHandler.of("work", job -> worked.incrementAndGet()),
                    JobHandler.of("yearly", job -> {}))
                .instanceId(id)
                .outbox(outbox, transport)
                .recurring(Schedule.cron("0 0 0 1 1 *"), "yearly", "{}"));

    PostboxException e = assertThrows(PostboxException.class, d::start);
    assertTrue(e.getMessage().contains("'yearly'"), e.getMessage());
    assertEquals(List.of(), Threads.named(id + "-"), "threads left running");
    assertEquals(0, leasedRows("postbox_outbox") + leasedRows("postbox_jobs"), "rows left leased");
    assertEquals(0, transport.total.get() + worked.get(), "delivered by the failed start");
    assertEquals(10, Sql.count(ds, "SELECT COUNT(*) FROM postbox_outbox"));
    assertEquals(10, jobRows());

    failing.set(false);
    d.start();
    assertTrue(d.awaitIdle(WAIT));
    assertEquals(10, transport.total.get(), "messages delivered after the second start");
    assertEquals(0, transport.duplicated());
    assertEquals(10, worked.get(), "jobs run after the second start");
  }

  private long leasedRows(String table) {
    return Sql.count(ds, "SELECT COUNT(*) FROM " + table + " WHERE leased_by IS NOT NULL");
  }

  /** {@code real}, whose INSERTs into the schedules table fail while {@code failing} holds. */
  private static Connection failingScheduleInserts(Connection real, AtomicBoolean failing) {
    return JdbcProxy.of(
        Connection.class,
        (proxy, method, args) -> {
          if (method.getName().equals("prepareStatement")
              && failing.get()
              && ((String) args[0]).startsWith("INSERT INTO postbox_jobs_schedules")) {
            throw new SQLException("injected failure storing a schedule", "XX000");
          }
          return JdbcProxy.invoke(real, method, args);
        });
  }

  /** A finished job's finish time: its available_at while it is kept as done. */
  private Instant finishedAt(long id) throws Exception {
    try (Connection c = ds.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT available_at FROM postbox_jobs WHERE id = ? AND state = 1")) {
      ps.setLong(1, id);
      try (ResultSet rs = ps.executeQuery()) {
        assertTrue(rs.next(), "job " + id + " done");
        return Dialects.of(db.database()).readInstant(rs, "available_at");
      }
    }
  }
}
