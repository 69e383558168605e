package dev.postbox.reliability;

import static dev.postbox.reliability.Harness.options;
import static dev.postbox.reliability.LimitLedger.GROUPED;
import static dev.postbox.reliability.LimitLedger.LIMIT;
import static dev.postbox.reliability.LimitLedger.LIMITED;
import static dev.postbox.reliability.LimitLedger.PER_GROUP;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postbox.Database;
import dev.postbox.Job;
import dev.postbox.Jobs;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

/**
 * Job concurrency limits under kill -9 (docs/jobs.md#limits-and-groups): three dispatcher processes
 * (one on SQLite) run {@link LimitLedger#LIMITED}, limited to 3 at once, and {@link
 * LimitLedger#GROUPED} over four groups, 2 of a group at once, from a backlog kept waiting all the
 * time, so both limits are reached; every 2–4 s the process running the most limited jobs while the
 * name is at its limit is killed and a new one started. Checked from the job table and the run
 * ledger once all is done: every job done, none lost; the limits never exceeded, a killed run
 * counted as holding its slot until its job starts again; a job runs again only if it was in flight
 * in a killed process.
 */
final class LimitScenario {
  /** Jobs of each name kept waiting while processes are killed: a top-up adds as many again. */
  private static final int BACKLOG = 40;

  private final RelDb db;
  private final Profile p;
  private final Scenarios scenarios;
  private final Jobs jobs = LimitLedger.jobs();
  private long enqueued;

  LimitScenario(RelDb db, Profile profile, Scenarios scenarios) {
    this.db = db;
    this.p = profile;
    this.scenarios = scenarios;
  }

  Reporting.Line kill9() {
    try (Harness h = scenarios.harness("limit-kill9")) {
      enqueued = 0;
      // a 2 s lease, so that a killed process's slots come back soon; runs of 20-60 ms
      Map<String, String> o =
          options(
              "mode", "limits", "lease-ms", "2000", "work-ms", "40", "batch", "4", "pool", "12");
      topUp();
      List<Child> live = new ArrayList<>(scenarios.startAll(h, scenarios.processes(3), o));
      int kills = p.pick(6, 60);
      Random random = new Random(3);
      int atLimit = 0;
      long inflight = 0;
      for (int k = 0; k < kills; k++) {
        long next = System.nanoTime() + Duration.ofMillis(2000 + random.nextInt(2000)).toNanos();
        while (System.nanoTime() < next) {
          topUp();
          Child.sleep(100);
        }
        Child victim = runningMostAtTheLimit(live);
        atLimit += victim != null ? 1 : 0;
        victim = victim != null ? victim : live.get(random.nextInt(live.size()));
        live.remove(victim);
        inflight += h.kill9(victim);
        live.add(h.start("d", o));
      }
      Duration drain = h.awaitQuiet(Duration.ofMinutes(p.pick(2, 5)), live);
      h.stopAll();
      Reporting.Line line =
          figures(h)
              .put("kills", kills)
              .put("kills_at_limit", atLimit)
              .put("inflight_at_kill", inflight)
              .put("drain_ms", drain.toMillis());
      line.print(p.label());
      assertRules(line);
      return line;
    }
  }

  /** Enqueues {@code 2 × BACKLOG} jobs of a name when fewer than {@link #BACKLOG} of it wait. */
  private void topUp() {
    for (String name : List.of(LIMITED, GROUPED)) {
      long waiting =
          db.count("SELECT COUNT(*) FROM postbox_jobs WHERE state IN (3, 5) AND name = ?", name);
      if (waiting >= BACKLOG) {
        continue;
      }
      List<Job> batch = new ArrayList<>();
      for (int i = 0; i < 2 * BACKLOG; i++) {
        batch.add(LimitLedger.job(name, enqueued + i));
      }
      try (Connection c = enqueueConnection()) {
        c.setAutoCommit(false);
        assertEquals(batch.size(), jobs.enqueueAll(c, batch), "jobs enqueued");
        c.commit();
      } catch (SQLException e) {
        throw new IllegalStateException("enqueueing limited jobs", e);
      }
      enqueued += batch.size();
    }
  }

  /**
   * A connection to enqueue on. On SQLite the enqueue of a grouped or limited job reads its place
   * in the fair order before it writes: as docs/operations.md advises for transactions that read
   * first, it begins IMMEDIATE, so it waits for the dispatchers' writes instead of failing with
   * SQLITE_BUSY.
   */
  private Connection enqueueConnection() throws SQLException {
    return db.database == Database.SQLITE
        ? DriverManager.getConnection(db.url() + "&transaction_mode=IMMEDIATE")
        : db.ds().getConnection();
  }

  /**
   * The live process leasing the most jobs of {@link LimitLedger#LIMITED} at a moment when live
   * leases hold all {@link LimitLedger#LIMIT} slots, waited for up to 2 s; null if none was seen.
   */
  private Child runningMostAtTheLimit(List<Child> live) {
    long deadline = System.nanoTime() + Duration.ofSeconds(2).toNanos();
    while (System.nanoTime() < deadline) {
      Map<Object, Long> byOwner = new HashMap<>();
      long total = 0;
      for (Object[] row :
          db.rows(
              "SELECT leased_by, COUNT(*) FROM postbox_jobs WHERE name = ? AND state = 0"
                  + " AND leased_by IS NOT NULL AND available_at > "
                  + db.nowSql()
                  + " GROUP BY leased_by",
              LIMITED)) {
        long n = ((Number) row[1]).longValue();
        byOwner.put(row[0], n);
        total += n;
      }
      Child most = null;
      for (Child c : live) {
        long n = byOwner.getOrDefault(c.instance, 0L);
        if (n > 0 && (most == null || n > byOwner.getOrDefault(most.instance, 0L))) {
          most = c;
        }
      }
      if (total == LIMIT && most != null) {
        return most;
      }
      Child.sleep(20);
    }
    return null;
  }

  private Reporting.Line figures(Harness h) {
    List<LimitLedger.Run> runs = LimitLedger.runs(db);
    List<LimitLedger.Held> held = LimitLedger.held(runs);
    Set<String> killed = new HashSet<>();
    Set<String> inFlight = new HashSet<>();
    for (Harness.Kill k : h.kills()) {
      killed.add(k.instance());
      inFlight.addAll(k.held());
    }
    Map<Long, Integer> runsPerJob = new HashMap<>();
    Set<Long> finished = new HashSet<>();
    long cut = 0;
    long cutLive = 0;
    for (LimitLedger.Run r : runs) {
      runsPerJob.merge(r.job(), 1, Integer::sum);
      if (r.end() != null) {
        finished.add(r.job());
      } else {
        cut++;
        cutLive += killed.contains(r.instance()) ? 0 : 1;
      }
    }
    long cutLimited =
        runs.stream().filter(r -> r.end() == null && r.name().equals(LIMITED)).count();
    long cutNotRunAgain = held.stream().filter(x -> x.until() == null).count();
    // a job ran again only if a killed process held it: its key is among those held at a kill
    long againNotInFlight =
        runs.stream()
            .filter(r -> runsPerJob.get(r.job()) > 1 && !inFlight.contains(r.key()))
            .map(LimitLedger.Run::job)
            .distinct()
            .count();
    long jobs = db.count("SELECT COUNT(*) FROM postbox_jobs");
    long done = db.count("SELECT COUNT(*) FROM postbox_jobs WHERE state = 1");
    long lost = db.count("SELECT COUNT(*) FROM postbox_jobs") - finished.size();
    long phantom =
        db.count(
            "SELECT COUNT(*) FROM rel_runs r WHERE NOT EXISTS"
                + " (SELECT 1 FROM postbox_jobs j WHERE j.id = r.job_id)");
    int mostLimited = LimitLedger.mostAtOnce(held, LimitLedger.Run::name).get(LIMITED);
    Map<String, Integer> perGroup = LimitLedger.mostAtOnce(held, LimitLedger.Run::group);
    return new Reporting.Line("limit-kill9", db.label)
        .put("enqueued", enqueued)
        .put("jobs", jobs)
        .put("done", done)
        .put("lost", lost)
        .put("phantom", phantom)
        .put("runs", runs.size())
        .put("dup", runs.size() - runsPerJob.size())
        .put("run_again_not_in_flight", againNotInFlight)
        .put("cut_by_kill", cut)
        .put("cut_limited", cutLimited)
        .put("cut_in_live_process", cutLive)
        .put("cut_not_run_again", cutNotRunAgain)
        .put("limit", LIMIT)
        .put("most_at_once", mostLimited)
        .put("groups", perGroup.size())
        .put("limit_per_group", PER_GROUP)
        .put("most_in_a_group", perGroup.values().stream().mapToInt(n -> n).max().orElse(0))
        .put("longest_cut_hold_ms", LimitLedger.longestCutHoldMillis(held));
  }

  private static void assertRules(Reporting.Line line) {
    assertEquals(line.number("enqueued"), line.number("jobs"), "jobs in the table: " + line);
    assertEquals(line.number("enqueued"), line.number("done"), "jobs not done: " + line);
    assertEquals(0, line.number("lost"), "jobs never run to their end: " + line);
    assertEquals(0, line.number("phantom"), "runs of jobs never enqueued: " + line);
    // the rule counts a cut run until its job runs again: that must be a kill's, and run again
    assertEquals(0, line.number("cut_in_live_process"), "a run ended without an end: " + line);
    assertEquals(0, line.number("cut_not_run_again"), "a cut run's job never ran again: " + line);
    // exact: a backlog waits all the time, so the limits are reached, and never exceeded
    assertEquals(LIMIT, line.number("most_at_once"), "limit of " + LIMITED + ": " + line);
    assertEquals(PER_GROUP, line.number("most_in_a_group"), "limit per group: " + line);
    assertEquals(LimitLedger.GROUPS, line.number("groups"), "groups run: " + line);
    assertEquals(0, line.number("run_again_not_in_flight"), "ran again, not in flight: " + line);
    assertTrue(
        line.number("dup") <= line.number("inflight_at_kill"),
        "dup must be at most the jobs in flight at the kills: " + line);
    assertTrue(line.number("kills_at_limit") > 0, "no kill landed at the limit: " + line);
    assertTrue(line.number("cut_limited") > 0, "no kill cut a limited run: " + line);
  }
}
