package dev.postbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postbox.internal.dialect.Dialects;
import dev.postbox.testing.Await;
import dev.postbox.testing.Sql;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A dispatcher claims only the job names it has handlers for: during a rolling deploy, jobs of a
 * type only the new instances handle wait for them instead of being parked by the old ones; jobs
 * that wait longer than a lease for a handler are reported once per name per hour.
 */
public abstract class JobNamesContractTest extends DatabaseTest {
  private static final Duration WAIT = Duration.ofSeconds(60);

  private final Jobs jobs = Jobs.builder().build();
  private final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();

  private JobHandler counting(String name) {
    return JobHandler.of(
        name, payload -> runs.computeIfAbsent(name, n -> new AtomicInteger()).incrementAndGet());
  }

  private int runs(String name) {
    AtomicInteger n = runs.get(name);
    return n == null ? 0 : n.get();
  }

  private Dispatcher.Builder dispatcher(JobHandler... handlers) {
    return Dispatcher.builder(ds)
        .jobs(jobs, handlers)
        .instanceId(nextInstanceId())
        .pollInterval(Duration.ofMillis(20));
  }

  private void enqueue(String name, int n) {
    Sql.commit(
        ds,
        c -> {
          for (int i = 0; i < n; i++) {
            jobs.enqueue(c, Job.of(name, "{}"));
          }
        });
  }

  private long count(String where) {
    return Sql.count(ds, "SELECT COUNT(*) FROM postbox_jobs WHERE " + where);
  }

  @Test
  void anOldDispatcherLeavesJobsOfANewTypeForTheNewOneInsteadOfParkingThem() throws Exception {
    // regression: a dispatcher claimed every job and parked at once the names it had no handler
    // for, so during a rolling deploy the old instances parked the new job types
    enqueue("send-email", 2);
    enqueue("new-type", 3);
    Dispatcher old = started(dispatcher(counting("send-email")));
    assertTrue(old.awaitIdle(WAIT));

    assertEquals(2, runs("send-email"));
    assertEquals(0, count("state = 2"), "parked");
    assertEquals(3, count("name = 'new-type' AND state = 0 AND attempts = 0"), "new-type waiting");
    try (Connection c = ds.getConnection()) {
      List<JobNameStats> byName = jobs.statsByName(c);
      assertEquals(1, byName.size(), byName.toString());
      JobNameStats waiting = byName.get(0);
      assertEquals("new-type", waiting.name());
      assertEquals(3, waiting.pending());
      assertEquals(3, waiting.due());
      assertEquals(0, waiting.leased());
      assertNotNull(waiting.oldestDueAt());
    }

    Dispatcher upgraded = started(dispatcher(counting("send-email"), counting("new-type")));
    assertTrue(upgraded.awaitIdle(WAIT));
    assertEquals(3, runs("new-type"));
    assertEquals(5, count("state = 1"), "done");
  }

  @Test
  void statsByNameCountsDueLeasedAndNotYetDueJobsPerName() throws Exception {
    enqueue("a", 2);
    Sql.commit(ds, c -> jobs.enqueue(c, Job.of("b", "{}").delay(Duration.ofHours(1))));
    try (Connection c = ds.getConnection()) {
      List<JobNameStats> byName = jobs.statsByName(c);
      assertEquals(List.of("a", "b"), byName.stream().map(JobNameStats::name).toList());
      assertEquals(2, byName.get(0).due());
      assertNotNull(byName.get(0).oldestDueAt());
      assertEquals(1, byName.get(1).pending());
      assertEquals(0, byName.get(1).due());
      assertNull(byName.get(1).oldestDueAt(), "b is not due");
    }
  }

  @Test
  void jobsWaitingLongerThanALeaseForAHandlerAreReportedOncePerName() throws Exception {
    enqueue("orphan", 2);
    enqueue("other-orphan", 1);
    enqueue("handled", 1);
    Sql.update(
        ds,
        "UPDATE postbox_jobs SET available_at = "
            + Sql.nowPlusMillis(db)
            + " WHERE name <> 'handled'",
        -5_000);
    Map<String, AtomicInteger> reported = new ConcurrentHashMap<>();
    Map<String, Long> waiting = new ConcurrentHashMap<>();
    Listener listener =
        new Listener() {
          @Override
          public void jobsWithoutHandler(String table, String name, long count, Instant dueSince) {
            reported.computeIfAbsent(name, n -> new AtomicInteger()).incrementAndGet();
            waiting.put(name, count);
          }
        };
    UnhandledJobs look = look(listener);
    for (int i = 0; i < 3; i++) {
      look.run();
    }
    assertEquals(Map.of("orphan", 2L, "other-orphan", 1L), waiting);
    assertEquals(1, reported.get("orphan").get(), "reported once an hour");
    assertEquals(1, reported.get("other-orphan").get(), "reported once an hour");

    // a running dispatcher with a one-second lease makes the same report of its own
    reported.clear();
    started(dispatcher(counting("handled")).lease(Duration.ofSeconds(1)).listener(listener));
    Await.until(WAIT, "both names reported", () -> reported.size() == 2);
    assertEquals(1, runs("handled"));
    assertEquals(3, count("state = 0 AND attempts = 0"), "the orphans wait, never attempted");
  }

  @Test
  void groupedJobsOfANameWithoutHandlerAreReportedThoughTheyWaitForAdmission() throws Exception {
    Jobs grouped = Jobs.builder().build();
    Sql.commit(
        ds,
        c -> {
          for (int i = 0; i < 2; i++) {
            assertTrue(grouped.enqueue(c, Job.of("orphan", "{}").group("tenant-" + i)));
          }
        });
    Sql.update(ds, "UPDATE postbox_jobs SET available_at = " + Sql.nowPlusMillis(db), -5_000);
    Map<String, Long> waiting = lookOnce();
    assertEquals(Map.of("orphan", 2L), waiting, "never admitted, yet waiting for a handler");
  }

  @Test
  void aPausedNamesWaitingJobsAreNotReportedAsWithoutHandler() throws Exception {
    enqueue("orphan", 1);
    enqueue("paused-orphan", 3);
    Sql.commit(ds, c -> Jobs.builder().build().pause(c, "paused-orphan"));
    Sql.update(ds, "UPDATE postbox_jobs SET available_at = " + Sql.nowPlusMillis(db), -5_000);
    Map<String, Long> waiting = lookOnce();
    assertEquals(Map.of("orphan", 1L), waiting, "the paused name waits on purpose");
  }

  /** One run of {@link #look}: the jobs it reports as waiting for a handler, per name. */
  private Map<String, Long> lookOnce() {
    Map<String, Long> waiting = new ConcurrentHashMap<>();
    look(new Listener() {
          @Override
          public void jobsWithoutHandler(String table, String name, long count, Instant dueSince) {
            waiting.put(name, count);
          }
        })
        .run();
    return waiting;
  }

  /** The look for jobs without a handler of a dispatcher that handles "handled", lease 1 s. */
  private UnhandledJobs look(Listener listener) {
    return new UnhandledJobs(
        ds,
        Dialects.of(db.database()),
        "postbox_jobs",
        Set.of("handled"),
        Duration.ofSeconds(1),
        listener,
        "test");
  }
}
