package dev.postbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postbox.testing.Await;
import dev.postbox.testing.RunLedger;
import dev.postbox.testing.Sql;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Concurrency limits per job name and per group, exact across dispatchers, and fair claiming
 * between groups (docs/jobs.md#limits-and-groups); proven on every database, subclasses only say
 * which. Each limit is checked on a ledger of the runs' start and finish instants, interval by
 * interval.
 */
public abstract class JobLimitContractTest extends DatabaseTest {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final String LIMITED = "send-invoice";
  private static final String GROUPED = "import-row";

  private RunLedger ledger;

  @BeforeEach
  void newLedger() {
    ledger = new RunLedger(); // one instance runs every test of the class
  }

  /** A handler that records its runs on the ledger, each taking {@code millis}. */
  private JobHandler recorded(String name, long millis) {
    return JobHandler.of(
        name, job -> ledger.run(name, groupOf(job.payload()), job.payload(), () -> sleep(millis)));
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Payloads are "group/n", or "-/n" for a job without a group. */
  private static String groupOf(String payload) {
    String group = payload.substring(0, payload.indexOf('/'));
    return group.equals("-") ? null : group;
  }

  private static Job job(String name, String group, int n) {
    Job job = Job.of(name, (group == null ? "-" : group) + "/" + n);
    return group == null ? job : job.group(group);
  }

  private void enqueue(Jobs jobs, List<Job> batch) {
    Sql.commit(ds, c -> assertEquals(batch.size(), jobs.enqueueAll(c, batch)));
  }

  private void awaitRuns(int n) {
    Await.until(WAIT, n + " runs", () -> ledger.runs().size() >= n);
  }

  private long finished() {
    return Sql.count(ds, "SELECT COUNT(*) FROM postbox_jobs WHERE state = 1");
  }

  /** Every payload ran exactly once. */
  private void eachRanOnce(int n) {
    Set<String> payloads = new HashSet<>();
    for (RunLedger.Run run : ledger.runs()) {
      assertTrue(payloads.add(run.payload()), "ran twice: " + run.payload());
    }
    assertEquals(n, payloads.size());
  }

  @Test
  void aNameLimitHoldsAcrossThreeDispatchers() {
    Jobs jobs = Jobs.builder().limit(LIMITED, 3).build();
    List<Job> batch = new ArrayList<>();
    for (int i = 0; i < 60; i++) {
      batch.add(job(LIMITED, null, i));
    }
    enqueue(jobs, batch);
    for (int i = 0; i < 3; i++) {
      started(jobDispatcher(jobs, recorded(LIMITED, 20)).concurrency(8).batchSize(4));
    }
    awaitRuns(60);
    Await.until(WAIT, "every job finished", () -> finished() == 60);
    eachRanOnce(60);
    int most = ledger.mostAtOnce(run -> run.name()).get(LIMITED);
    assertTrue(most <= 3, "at most 3 at once, but " + most);
  }

  @Test
  void aGroupLimitHoldsAcrossThreeDispatchersForEveryGroup() {
    Jobs jobs = Jobs.builder().limitPerGroup(2).build();
    List<Job> batch = new ArrayList<>();
    for (int i = 0; i < 60; i++) {
      batch.add(job(GROUPED, "tenant-" + (i % 5), i));
    }
    enqueue(jobs, batch);
    for (int i = 0; i < 3; i++) {
      started(jobDispatcher(jobs, recorded(GROUPED, 20)).concurrency(8).batchSize(4));
    }
    awaitRuns(60);
    Await.until(WAIT, "every job finished", () -> finished() == 60);
    eachRanOnce(60);
    Map<String, Integer> most = ledger.mostAtOnce(RunLedger.Run::group);
    assertEquals(5, most.size());
    most.forEach((group, n) -> assertTrue(n <= 2, group + ": at most 2 at once, but " + n));
  }

  @Test
  void aGroupAtItsLimitDoesNotHoldUpTheOtherGroups() throws Exception {
    Jobs jobs = Jobs.builder().limitPerGroup(1).build();
    CountDownLatch release = new CountDownLatch(1);
    JobHandler handler =
        JobHandler.of(
            GROUPED,
            job ->
                ledger.run(
                    GROUPED,
                    groupOf(job.payload()),
                    job.payload(),
                    () -> {
                      if (job.payload().startsWith("big/")) {
                        await(release);
                      }
                    }));
    List<Job> batch = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      batch.add(job(GROUPED, "big", i));
    }
    for (int i = 0; i < 10; i++) {
      batch.add(job(GROUPED, "small-" + i, i));
    }
    enqueue(jobs, batch);
    started(jobDispatcher(jobs, handler).concurrency(8));
    // the big group's first job holds its only slot; the small groups' jobs run meanwhile
    awaitRuns(10);
    assertEquals(
        10, ledger.runs().stream().filter(run -> run.group().startsWith("small-")).count());
    assertEquals(
        1, Sql.count(ds, "SELECT COUNT(*) FROM postbox_jobs WHERE grp = 'big' AND state = 0"));
    Sql.commit(
        ds,
        c -> {
          JobGroupStats big =
              jobs.busiestGroups(c, 100).stream()
                  .filter(g -> g.group().equals("big"))
                  .findFirst()
                  .orElseThrow();
          assertEquals(new JobGroupStats("big", 200, 199, 1), big);
        });
    release.countDown();
    awaitRuns(210);
    Await.until(WAIT, "every job finished", () -> finished() == 210);
    assertEquals(1, ledger.mostAtOnce(RunLedger.Run::group).get("big"));
  }

  private static void await(CountDownLatch latch) {
    try {
      assertTrue(latch.await(WAIT.toSeconds(), TimeUnit.SECONDS));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Test
  void groupsShareClaimsFairlyWhileOneHasALargeBacklog() {
    Jobs jobs = Jobs.builder().build(); // no limit: fairness alone
    List<Job> batch = new ArrayList<>();
    for (int i = 0; i < 1000; i++) {
      batch.add(job(GROUPED, "big", i));
    }
    enqueue(jobs, batch);
    List<Job> small = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      small.add(job(GROUPED, "small-" + i, i));
    }
    enqueue(jobs, small); // enqueued after the backlog, in their own transaction
    started(jobDispatcher(jobs, recorded(GROUPED, 0)).concurrency(1).batchSize(5));
    awaitRuns(1010);
    List<RunLedger.Run> order = new ArrayList<>(ledger.runs());
    order.sort((a, b) -> Long.compare(a.start(), b.start()));
    int lastSmall = 0;
    for (int i = 0; i < order.size(); i++) {
      if (order.get(i).group().startsWith("small-")) {
        lastSmall = i;
      }
    }
    // first come, first served would run them last (1000 to 1009); a fair claim runs them among
    // the first jobs: each group's first job has a place at the front, and the admission keeps at
    // most two batches admitted ahead of the claims
    assertTrue(lastSmall < 30, "the small groups' last job ran as number " + (lastSmall + 1));
    eachRanOnce(1010);
  }

  @Test
  void aBurstOfOneGroupsDelayedJobsComingDueDoesNotHoldUpAnotherGroup() {
    Jobs jobs = Jobs.builder().limitPerGroup(2).build();
    List<Job> burst = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      burst.add(job(GROUPED, "burst", i).delay(Duration.ofHours(1)));
    }
    enqueue(jobs, burst);
    // an hour later: all due at once (as retries after an outage would be), and joining the
    // waiting jobs at the dispatcher's first admission
    Sql.update(
        ds,
        "UPDATE postbox_jobs SET available_at = " + Sql.nowPlusMillis(db) + " WHERE state = 5",
        -1_000);
    Dispatcher first =
        started(jobDispatcher(jobs, recorded(GROUPED, 10)).concurrency(2).batchSize(5));
    awaitRuns(1);
    first
        .close(); // (on SQLite an enqueue beside a running dispatcher needs IMMEDIATE transactions)
    enqueue(jobs, List.of(job(GROUPED, "other", 0)));
    started(jobDispatcher(jobs, recorded(GROUPED, 10)).concurrency(2).batchSize(5));
    awaitRuns(301);
    List<RunLedger.Run> order = new ArrayList<>(ledger.runs());
    order.sort((a, b) -> Long.compare(a.start(), b.start()));
    int other = 0;
    while (!order.get(other).group().equals("other")) {
      other++;
    }
    // one place for all 300 would have put every one of them before it in each admission's window
    assertTrue(other < 20, "the other group's job ran as number " + (other + 1));
  }

  @Test
  void aPausedNamesAdmittedJobsFreeTheirGroupsSlotsAndDoNotStopAdmissions() {
    Jobs jobs = Jobs.builder().limitPerGroup(3).build();
    enqueue(jobs, List.of(job("sync-crm", "tenant-1", 0), job("sync-crm", "tenant-1", 1)));
    enqueue(jobs, List.of(job("sync-crm", "tenant-1", 2)));
    // admitted and not claimed yet when the name is paused: the group's three slots
    Sql.update(ds, "UPDATE postbox_jobs SET state = 0 WHERE name = 'sync-crm'");
    Sql.commit(ds, c -> jobs.pause(c, "sync-crm"));
    enqueue(jobs, List.of(job(GROUPED, "tenant-1", 3)));
    started(
        jobDispatcher(jobs, recorded(GROUPED, 0), recorded("sync-crm", 0))
            .concurrency(4)
            .batchSize(4));
    awaitRuns(1);
    assertEquals(GROUPED, ledger.runs().get(0).name());
    Sql.commit(ds, c -> jobs.resume(c, "sync-crm"));
    awaitRuns(4);
    Await.until(WAIT, "every job finished", () -> finished() == 4);
  }

  @Test
  void aDeadDispatchersSlotsAreFreeOneLeaseLaterAndItsJobsRunAgain() {
    Jobs jobs = Jobs.builder().limit(LIMITED, 2).build();
    List<Job> batch = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      batch.add(job(LIMITED, null, i));
    }
    enqueue(jobs, batch);
    // a dispatcher admitted and claimed the first two, then died: leased for 1 more second
    Sql.update(
        ds,
        "UPDATE postbox_jobs SET state = 0, leased_by = 'dead', attempts = 1, claims = 1,"
            + " available_at = "
            + Sql.nowPlusMillis(db)
            + " WHERE payload IN ('-/0', '-/1')",
        1000);
    started(jobDispatcher(jobs, recorded(LIMITED, 0)).concurrency(8));
    awaitRuns(6);
    Await.until(WAIT, "every job finished", () -> finished() == 6);
    List<RunLedger.Run> order = new ArrayList<>(ledger.runs());
    order.sort((a, b) -> Long.compare(a.start(), b.start()));
    // the dead dispatcher's two jobs held both slots until their lease ran out: they ran first
    assertEquals(Set.of("-/0", "-/1"), Set.of(order.get(0).payload(), order.get(1).payload()));
    assertEquals(2, Sql.count(ds, "SELECT COUNT(*) FROM postbox_jobs WHERE attempts = 2"));
    eachRanOnce(6);
    assertTrue(ledger.mostAtOnce(run -> run.name()).get(LIMITED) <= 2);
  }

  @Test
  void aFailedLimitedJobFreesItsSlotAndARetryOrReplayWaitsForOneAgain() {
    Jobs jobs = Jobs.builder().limit(LIMITED, 1).build();
    JobHandler failingOnce =
        JobHandler.of(
            LIMITED,
            job ->
                ledger.run(
                    LIMITED,
                    null,
                    job.payload() + "#" + job.attempt(),
                    () -> {
                      if (job.payload().equals("-/0") && job.attempt() == 1) {
                        throw new IllegalStateException("first attempt fails");
                      }
                    }));
    enqueue(jobs, List.of(job(LIMITED, null, 0), job(LIMITED, null, 1), job(LIMITED, null, 2)));
    started(jobDispatcher(jobs, failingOnce).concurrency(4));
    awaitRuns(4);
    Await.until(WAIT, "every job finished", () -> finished() == 3);
    assertEquals(1, ledger.mostAtOnce(run -> run.name()).get(LIMITED));
  }

  @Test
  void waitingJobsCountAsPendingAndCanBeCancelled() {
    Jobs jobs = Jobs.builder().limit(LIMITED, 1).build();
    Sql.commit(
        ds,
        c -> {
          assertTrue(jobs.enqueue(c, job(LIMITED, null, 0)));
          assertTrue(jobs.enqueue(c, job(GROUPED, "tenant-1", 1).delay(Duration.ofHours(1))));
        });
    Sql.commit(
        ds,
        c -> {
          Map<String, JobNameStats> byName = new java.util.HashMap<>();
          jobs.statsByName(c).forEach(s -> byName.put(s.name(), s));
          assertEquals(1, byName.get(LIMITED).pending());
          assertEquals(1, byName.get(LIMITED).due());
          assertEquals(1, byName.get(LIMITED).limit());
          assertEquals(0, byName.get(GROUPED).limit());
          assertEquals(List.of(new JobGroupStats("tenant-1", 1, 0, 0)), jobs.busiestGroups(c, 10));
          assertEquals(1, byName.get(GROUPED).pending());
          assertEquals(0, byName.get(GROUPED).due());
          assertEquals(2, jobs.stats(c).pending());
        });
    long id =
        ((Number) Sql.value(ds, "SELECT id FROM postbox_jobs WHERE grp = 'tenant-1'")).longValue();
    Sql.commit(ds, c -> assertTrue(jobs.cancel(c, id)));
    assertEquals(1, Sql.count(ds, "SELECT COUNT(*) FROM postbox_jobs"));
  }

  @Test
  void badLimitsAndGroupsAreRefusedNamingTheFieldAndNothingIsWritten() {
    InvalidValueException zero =
        assertThrows(InvalidValueException.class, () -> Jobs.builder().limit(LIMITED, 0));
    assertTrue(zero.getMessage().contains("limit of " + LIMITED), zero.getMessage());
    assertThrows(InvalidValueException.class, () -> Jobs.builder().limit(LIMITED, -1));
    assertThrows(InvalidValueException.class, () -> Jobs.builder().limit("bad name", 2));
    InvalidValueException perGroup =
        assertThrows(InvalidValueException.class, () -> Jobs.builder().limitPerGroup(0));
    assertTrue(perGroup.getMessage().contains("limitPerGroup"), perGroup.getMessage());
    assertThrows(InvalidValueException.class, () -> Job.of(GROUPED, "{}").group(null));
    assertThrows(InvalidValueException.class, () -> Job.of(GROUPED, "{}").group(""));
    assertThrows(InvalidValueException.class, () -> Job.of(GROUPED, "{}").group(" tenant"));
    assertThrows(InvalidValueException.class, () -> Job.of(GROUPED, "{}").group("x".repeat(201)));
    // a limit on a name the dispatcher has no handler for limits nothing: refused
    Jobs misspelt = Jobs.builder().limit("send-invoce", 2).build();
    InvalidValueException unknown =
        assertThrows(
            InvalidValueException.class, () -> jobDispatcher(misspelt, recorded(LIMITED, 0)));
    assertTrue(unknown.getMessage().contains("send-invoce"), unknown.getMessage());
    assertEquals(0, Sql.count(ds, "SELECT COUNT(*) FROM postbox_jobs"));
  }
}
