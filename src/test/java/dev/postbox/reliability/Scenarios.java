package dev.postbox.reliability;

import static dev.postbox.reliability.Harness.options;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postbox.Database;
import dev.postbox.reliability.Producer.Plan;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * The reliability scenarios, each one run of producers (this JVM) against dispatcher processes,
 * ending in one printed line of figures and the assertions of the rules it must hold. The same code
 * runs the short (CI) and the long version; only the sizes differ.
 */
final class Scenarios {
  private final RelDb db;
  private final Profile p;
  private final boolean sqlite;

  Scenarios(RelDb db, Profile profile) {
    this.db = db;
    this.p = profile;
    this.sqlite = db.database == Database.SQLITE;
  }

  Harness harness(String scenario) {
    db.reset();
    return new Harness(db, scenario, p);
  }

  /** Dispatcher processes to run: one on SQLite (a single node), {@code servers} elsewhere. */
  int processes(int servers) {
    return sqlite ? 1 : servers;
  }

  List<Child> startAll(Harness h, int n, Map<String, String> options) {
    List<Thread> starters = new ArrayList<>();
    List<Child> out = java.util.Collections.synchronizedList(new ArrayList<>());
    List<RuntimeException> failures = java.util.Collections.synchronizedList(new ArrayList<>());
    for (int i = 0; i < n; i++) {
      starters.add(
          Thread.ofPlatform()
              .start(
                  () -> {
                    try {
                      out.add(h.start("d", options));
                    } catch (RuntimeException e) {
                      failures.add(e);
                    }
                  }));
    }
    for (Thread t : starters) {
      join(t);
    }
    if (out.size() != n) {
      IllegalStateException e =
          new IllegalStateException("only " + out.size() + " of " + n + " processes started");
      failures.forEach(e::addSuppressed);
      throw e;
    }
    return out;
  }

  private static void join(Thread t) {
    try {
      t.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  static void assertCore(Reporting.Line line) {
    assertEquals(0, line.number("lost"), "lost: " + line);
    assertEquals(0, line.number("phantom"), "phantom: " + line);
  }

  /** Adds the ordering checker's figure (see {@link KeyOrderLedger}) for these outbox producers. */
  Reporting.Line ordered(Reporting.Line line, Producer... outboxProducers) {
    return line.put("inversions", KeyOrderLedger.inversions(db, outboxProducers));
  }

  static void assertInOrder(Reporting.Line line) {
    assertEquals(0, line.number("inversions"), "per-key order broken: " + line);
  }

  static void assertExclusive(Reporting.Line line) {
    assertEquals(0, line.number("double_lease"), "double leases: " + line);
    assertEquals(
        0, line.number("lease_not_held"), "delivered without holding a live lease: " + line);
  }

  static void assertProducersClean(Reporting.Line line, Producer... producers) {
    long committed = 0;
    for (Producer pr : producers) {
      assertEquals(0, pr.errors.get(), "producer errors: " + pr.firstError() + " — " + line);
      committed += pr.committed.get();
    }
    assertEquals(committed, line.number("committed"), "ledger vs producers: " + line);
  }

  // --- 1. rollbacks -------------------------------------------------------------------------

  /** Half of the producer transactions roll back after adding: none of them is ever delivered. */
  Reporting.Line rollbacks() {
    try (Harness h = harness("rollbacks")) {
      List<Child> cs = startAll(h, processes(2), options("mode", "both"));
      Producer outbox =
          new Producer(db, Plan.of("rb-o", p.pick(1200, 20_000)).rollbacks(0.5)).start();
      Producer jobs =
          new Producer(db, Plan.of("rb-j", p.pick(600, 10_000)).rollbacks(0.5).jobs(Duration.ZERO))
              .start();
      outbox.join();
      jobs.join();
      Duration drain = h.awaitQuiet(Duration.ofMinutes(p.pick(2, 10)), cs);
      h.stopAll();
      Reporting.Line line =
          ordered(h.figures(), outbox)
              .put("rolled_back", outbox.rolledBack.get() + jobs.rolledBack.get())
              .put("drain_ms", drain.toMillis());
      line.print(p.label());
      assertCore(line);
      assertInOrder(line);
      assertExclusive(line);
      assertProducersClean(line, outbox, jobs);
      assertEquals(0, line.number("dup"), "no kill, no duplicate: " + line);
      assertTrue(line.number("rolled_back") > 0, line.toString());
      return line;
    }
  }

  // --- 2. kill -9 ---------------------------------------------------------------------------

  /**
   * Dispatcher processes (3; 1 on SQLite) with a 2 s lease; every few seconds a random one is
   * killed with SIGKILL and a new one (new instance id) started, while producers write messages of
   * 1,000 keys: per-key order holds across the takeovers.
   */
  Reporting.Line kill9() {
    try (Harness h = harness("kill9")) {
      // a pool with room for every delivery of both lanes, so lease renewals never queue for a
      // connection behind the recording transport
      Map<String, String> o =
          options(
              "mode",
              "both",
              "lease-ms",
              "2000",
              "batch",
              "20",
              "work-ms",
              "20",
              "concurrency",
              "4",
              "pool",
              "12");
      List<Child> live = new ArrayList<>(startAll(h, processes(3), o));
      int seconds = p.pick(16, 240);
      Producer outbox =
          new Producer(db, Plan.of("k9-o", seconds * 100).rate(100).threads(4).keys(1000)).start();
      Producer jobs =
          new Producer(db, Plan.of("k9-j", seconds * 30).rate(30).threads(2).jobs(Duration.ZERO))
              .start();
      Random random = new Random(42);
      long preKill = 0;
      while (!(outbox.done() && jobs.done())) {
        Child.sleep(2000 + random.nextInt(2000));
        if (outbox.done() && jobs.done()) {
          break;
        }
        Child victim = live.remove(random.nextInt(live.size()));
        preKill += h.liveLeases(victim.instance);
        h.kill9(victim);
        live.add(h.start("d", o));
      }
      Duration drain = h.awaitQuiet(Duration.ofMinutes(p.pick(2, 10)), live);
      h.stopAll();
      Reporting.Line line =
          ordered(h.figures(), outbox)
              .put("live_leases_before_kill", preKill)
              .put("drain_ms", drain.toMillis());
      line.print(p.label());
      assertCore(line);
      assertInOrder(line);
      assertExclusive(line);
      assertProducersClean(line, outbox, jobs);
      assertTrue(line.number("kills") > 0, line.toString());
      assertTrue(
          line.number("dup") <= line.number("inflight_at_kill"),
          "dup must be at most the rows in flight at the kills: " + line);
      return line;
    }
  }

  // --- 3. database restart ------------------------------------------------------------------

  /**
   * The database server crashes and restarts under load (PostgreSQL: restart -m immediate; MariaDB:
   * kill -9 and start); the dispatcher processes recover by themselves, without leaking connections
   * or threads.
   */
  Reporting.Line databaseRestart() {
    try (Harness h = harness("db-restart")) {
      Map<String, String> o = options("mode", "both", "lease-ms", "10000");
      List<Child> cs = startAll(h, 2, o);
      int seconds = p.pick(20, 150);
      int restarts = p.pick(1, 3);
      Producer outbox = new Producer(db, Plan.of("rs-o", seconds * 80).rate(80).threads(4)).start();
      Producer jobs =
          new Producer(db, Plan.of("rs-j", seconds * 20).rate(20).threads(2).jobs(Duration.ZERO))
              .start();
      Child.sleep(4000);
      long threadsBefore = cs.stream().mapToLong(c -> c.statusFigure("threads")).max().orElse(0);
      long worstRecovery = 0;
      long worstDown = 0;
      for (int r = 0; r < restarts; r++) {
        long downStart = System.nanoTime();
        ServerControl.crashAndRestart(db, Duration.ofSeconds(2));
        long up = System.nanoTime();
        worstDown = Math.max(worstDown, (up - downStart) / 1_000_000);
        long deliveredAtUp = sumStatus(cs, "delivered");
        while (sumStatus(cs, "delivered") <= deliveredAtUp) {
          if (System.nanoTime() - up > Duration.ofMinutes(2).toNanos()) {
            throw new AssertionError("no delivery within 2 min of the database coming back");
          }
          Child.sleep(50);
        }
        worstRecovery = Math.max(worstRecovery, (System.nanoTime() - up) / 1_000_000);
        if (r + 1 < restarts) {
          Child.sleep(seconds * 1000L / (restarts + 1));
        }
      }
      outbox.join();
      jobs.join();
      Duration drain = h.awaitQuiet(Duration.ofMinutes(p.pick(3, 10)), cs);
      Child.sleep(3000); // let the pools settle once idle
      long threadsAfter = cs.stream().mapToLong(c -> c.statusFigure("threads")).max().orElse(0);
      long minActive = Long.MAX_VALUE;
      for (int i = 0; i < 10; i++) {
        minActive = Math.min(minActive, sumStatus(cs, "pool_active"));
        Child.sleep(150);
      }
      long poolTotal = sumStatus(cs, "pool_total");
      long serverConnections = childConnectionsOnServer(cs);
      boolean allAlive = cs.stream().allMatch(Child::alive);
      h.stopAll();
      Reporting.Line line =
          ordered(h.figures(), outbox)
              .put("restarts", restarts)
              .put("down_ms", worstDown)
              .put("recovery_ms", worstRecovery)
              .put("drain_ms", drain.toMillis())
              .put("producer_errors", outbox.errors.get() + jobs.errors.get())
              .put("threads_before", threadsBefore)
              .put("threads_after", threadsAfter)
              .put("pool_connections", poolTotal)
              .put("server_connections", serverConnections)
              .put("idle_active_connections", minActive)
              .put("processes_restarted", allAlive ? 0 : 1);
      line.print(p.label());
      assertCore(line);
      assertInOrder(line);
      assertTrue(allAlive, "a dispatcher process died: " + line);
      assertEquals(0, minActive, "connections borrowed and never returned: " + line);
      assertTrue(poolTotal <= 2L * 6, "pool above its maximum: " + line);
      assertTrue(
          Math.abs(serverConnections - poolTotal) <= 2,
          "server sees connections the pools do not hold: " + line);
      assertTrue(threadsAfter <= threadsBefore + 6, "threads leaked: " + line);
      return line;
    }
  }

  private static long sumStatus(List<Child> cs, String figure) {
    return cs.stream().mapToLong(c -> c.statusFigure(figure)).sum();
  }

  /** Connections the server has open for these dispatcher processes. */
  private long childConnectionsOnServer(List<Child> cs) {
    if (db.database == Database.POSTGRESQL) {
      long n = 0;
      for (Child c : cs) {
        n +=
            db.count(
                "SELECT COUNT(*) FROM pg_stat_activity WHERE application_name = ?",
                "rel-" + c.instance);
      }
      return n;
    }
    // MariaDB here has no performance_schema to tell clients apart: every connection to this
    // database is either this JVM's fixed-size pool or a dispatcher process's
    return db.count("SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE DB = DATABASE()")
        - db.poolConnections();
  }

  // --- 4. transport outage ------------------------------------------------------------------

  /**
   * The transport fails everything for far longer than maxAttempts x backoff: nothing is parked,
   * everything is delivered after recovery, and the dispatchers idle meanwhile.
   */
  Reporting.Line transportOutage() {
    try (Harness h = harness("outage")) {
      Path flag = flagFile("outage-" + db.label);
      Map<String, String> o =
          options(
              "max-attempts", "3",
              "backoff", "fixed:200",
              "poll-ms", "100",
              "outage-file", flag.toString());
      List<Child> cs = startAll(h, processes(2), o);
      Producer before = new Producer(db, Plan.of("out-a", 200)).runToEnd();
      h.awaitQuiet(Duration.ofMinutes(1), cs);
      long outageMillis = p.pick(8_000L, 60_000L);
      touch(flag);
      long outageStart = System.nanoTime();
      int during = p.pick(300, 3000);
      Producer down =
          new Producer(db, Plan.of("out-b", during).rate(during * 1000.0 / outageMillis * 2))
              .start();
      Child.sleep(1000); // detection and the JIT settle; measure the steady state
      long cpuStart = cs.stream().mapToLong(Child::cpuMillis).sum();
      long wallStart = System.nanoTime();
      Child.sleep(outageMillis - 1000);
      long cpu = cs.stream().mapToLong(Child::cpuMillis).sum() - cpuStart;
      long wall = (System.nanoTime() - wallStart) / 1_000_000;
      long outageLasted = (System.nanoTime() - outageStart) / 1_000_000;
      long failedAttempts = db.count("SELECT COUNT(*) FROM rel_deliveries WHERE ok = 0");
      long parkedDuring = h.parked();
      delete(flag);
      long up = System.nanoTime();
      down.join();
      h.awaitQuiet(Duration.ofMinutes(p.pick(2, 5)), cs);
      long recovery = (System.nanoTime() - up) / 1_000_000;
      long outages = sumStatus(cs, "outages");
      h.stopAll();
      double cpuPct = 100.0 * cpu / wall / cs.size();
      Reporting.Line line =
          h.figures()
              .put("outage_ms", outageLasted)
              .put("attempt_budget_ms", 3 * 200)
              .put("failed_attempts", failedAttempts)
              .put("parked_during_outage", parkedDuring)
              .put("outages_detected", outages)
              .put("cpu_pct_per_process", String.format(java.util.Locale.ROOT, "%.1f", cpuPct))
              .put("recovery_ms", recovery);
      line.print(p.label());
      assertCore(line);
      assertProducersClean(line, before, down);
      assertEquals(0, line.number("parked"), "parked by an outage: " + line);
      assertEquals(0, parkedDuring, "parked by an outage: " + line);
      assertTrue(outages >= 1, "the outage was not detected: " + line);
      assertTrue(cpuPct < 10, "dispatcher CPU while the transport is down: " + line);
      return line;
    }
  }

  private static Path flagFile(String name) {
    Path dir = Reporting.buildDir().resolve("reliability");
    try {
      Files.createDirectories(dir);
      Path flag = dir.resolve(name + ".flag");
      Files.deleteIfExists(flag);
      return flag;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void touch(Path file) {
    try {
      Files.writeString(file, "down");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void delete(Path file) {
    try {
      Files.deleteIfExists(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  // --- 5. clock skew ------------------------------------------------------------------------

  /**
   * Two dispatcher processes whose wall clocks are 10 min ahead and 10 min behind (libfaketime): no
   * lease is taken over before it expires by the database clock and no delayed job runs before its
   * time.
   */
  Reporting.Line clockSkew() {
    try (Harness h = harness("clock-skew")) {
      int ghosts = p.pick(30, 300);
      long ghostLeaseMillis = 10_000;
      // rows another (paused) instance holds: leased by the database clock for 10 s more
      new Producer(db, Plan.of("sk-g", ghosts)).runToEnd();
      db.update(
          "UPDATE rel_ledger SET due_at = " + db.nowPlusSql() + " WHERE event_id LIKE 'sk-g-%'",
          ghostLeaseMillis);
      db.update(
          "UPDATE postbox_outbox SET leased_by = 'ghost', attempts = 1, available_at = "
              + db.nowPlusSql(),
          ghostLeaseMillis);
      Map<String, String> o =
          options("mode", "both", "lease-ms", "3000", "concurrency", "4", "pool", "12");
      Child ahead = h.start("plus10m", o, "+10m");
      Child behind = h.start("minus10m", o, "-10m");
      long aheadOffset = ahead.clockOffsetMillis();
      long behindOffset = behind.clockOffsetMillis();
      assertTrue(
          Math.abs(aheadOffset - 600_000) < 60_000,
          "libfaketime did not move the clock 10 min ahead: offset " + aheadOffset + " ms");
      assertTrue(
          Math.abs(behindOffset + 600_000) < 60_000,
          "libfaketime did not move the clock 10 min back: offset " + behindOffset + " ms");
      int seconds = p.pick(12, 120);
      Producer outbox = new Producer(db, Plan.of("sk-o", seconds * 40).rate(40).threads(2)).start();
      Producer delayed =
          new Producer(
                  db,
                  Plan.of("sk-j", seconds * 10)
                      .rate(10)
                      .threads(2)
                      .jobs(Duration.ofMillis(p.pick(6000, 20_000))))
              .start();
      outbox.join();
      delayed.join();
      Duration drain = h.awaitQuiet(Duration.ofMinutes(p.pick(2, 5)), List.of(ahead, behind));
      h.stopAll();
      long early =
          db.count(
              "SELECT COUNT(*) FROM rel_ledger l WHERE EXISTS (SELECT 1 FROM rel_deliveries d"
                  + " WHERE d.event_id = l.event_id AND d.delivered_at < l.due_at)");
      long earlyGhosts =
          db.count(
              "SELECT COUNT(*) FROM rel_ledger l WHERE l.event_id LIKE 'sk-g-%' AND EXISTS"
                  + " (SELECT 1 FROM rel_deliveries d WHERE d.event_id = l.event_id AND"
                  + " d.delivered_at < l.due_at)");
      long maxLate = maxLateMillis("sk-j-%");
      Reporting.Line line =
          h.figures()
              .put("skew_ahead_ms", aheadOffset)
              .put("skew_behind_ms", behindOffset)
              .put("foreign_leases", ghosts)
              .put("stolen_early", earlyGhosts)
              .put("delayed_jobs", delayed.committed.get())
              .put("run_early", early - earlyGhosts)
              .put("max_job_lateness_ms", maxLate)
              .put("drain_ms", drain.toMillis());
      line.print(p.label());
      assertCore(line);
      assertExclusive(line);
      assertEquals(0, line.number("dup"), "duplicates under skew: " + line);
      assertEquals(0, earlyGhosts, "a lease was taken over before it expired: " + line);
      assertEquals(0, early - earlyGhosts, "a delayed job ran before its time: " + line);
      return line;
    }
  }

  /** The worst delay between a job's due time and its first run, by the database clock. */
  private long maxLateMillis(String like) {
    List<Object[]> ids = db.rows("SELECT event_id FROM rel_ledger WHERE event_id LIKE ?", like);
    List<Instant> due =
        db.instants("SELECT due_at FROM rel_ledger WHERE event_id LIKE ? ORDER BY event_id", like);
    List<String> sorted =
        ids.stream().map(r -> (String) r[0]).sorted(Comparator.naturalOrder()).toList();
    Map<String, List<Instant>> deliveries = new Harness(db, "x", p).deliveriesByEvent();
    long worst = 0;
    for (int i = 0; i < sorted.size(); i++) {
      Instant first =
          deliveries.getOrDefault(sorted.get(i), List.of()).stream()
              .min(Comparator.naturalOrder())
              .orElse(null);
      if (first != null) {
        worst = Math.max(worst, Duration.between(due.get(i), first).toMillis());
      }
    }
    return worst;
  }

  // --- 6. contention ------------------------------------------------------------------------

  /**
   * 3 processes x 4 dispatchers each claim at once while producers insert, with batch 1 or 100:
   * never two live leases on one row, nothing lost, MariaDB deadlocks retried and counted (through
   * {@code Listener.retried}).
   */
  Reporting.Line contention(int batch) {
    try (Harness h = harness("contention-b" + batch)) {
      Map<String, String> o =
          options(
              "dispatchers", "4",
              "batch", Integer.toString(batch),
              "concurrency", "8",
              "work-ms", "1",
              "pool", "8");
      long deadlocksBefore = deadlocks();
      List<Child> cs = startAll(h, 3, o);
      long start = System.nanoTime();
      Producer producer =
          new Producer(db, Plan.of("ct" + batch, p.pick(2000, 30_000)).threads(6)).start();
      producer.join();
      Duration drain = h.awaitQuiet(Duration.ofMinutes(p.pick(3, 10)), cs);
      long elapsed = (System.nanoTime() - start) / 1_000_000;
      long claimErrors = 0;
      long writeErrors = 0;
      h.stopAll();
      long retried = sumStatus(cs, "retried"); // the last STATUS line is printed at shutdown
      for (Child c : h.children()) {
        String err = c.errors();
        claimErrors += err.lines().filter(l -> l.contains("claim failed")).count();
        writeErrors += err.lines().filter(l -> l.contains("outcomes on")).count();
      }
      long deadlocks = deadlocks() - deadlocksBefore;
      Reporting.Line line =
          ordered(h.figures(), producer)
              .put("batch", batch)
              .put("claimers", 12)
              .put(
                  db.database == Database.POSTGRESQL ? "deadlocks_db" : "deadlocks_server",
                  deadlocks)
              .put("retried_by_postbox", retried)
              .put("claim_errors_logged", claimErrors)
              .put("outcome_errors_logged", writeErrors)
              .put("msgs_per_s", producer.committed.get() * 1000 / Math.max(1, elapsed))
              .put("drain_ms", drain.toMillis());
      line.print(p.label());
      assertCore(line);
      assertExclusive(line);
      assertProducersClean(line, producer);
      assertInOrder(line);
      assertEquals(0, line.number("dup"), "duplicates without any crash: " + line);
      assertEquals(0, claimErrors, "a claim failed after its retries: " + line);
      return line;
    }
  }

  /**
   * Deadlocks the server counted so far: PostgreSQL per database; MariaDB only server-wide
   * (Innodb_deadlocks), so other databases' deadlocks count too — an upper bound.
   */
  private long deadlocks() {
    if (db.database == Database.POSTGRESQL) {
      return db.count("SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()");
    }
    Object[] row = db.rows("SHOW GLOBAL STATUS LIKE 'Innodb_deadlocks'").get(0);
    return Long.parseLong(String.valueOf(row[1]));
  }

  // --- 7. out-of-order commits --------------------------------------------------------------

  /**
   * Some producer transactions hold for 2 s between insert and commit, so rows with lower ids
   * become visible after higher ones: none is skipped.
   */
  Reporting.Line outOfOrder() {
    try (Harness h = harness("out-of-order")) {
      List<Child> cs = startAll(h, processes(2), options("mode", "both"));
      int seconds = p.pick(10, 120);
      Producer outbox =
          new Producer(
                  db,
                  Plan.of("oo-o", seconds * 60)
                      .rate(60)
                      .threads(8)
                      .holds(0.1, Duration.ofSeconds(2)))
              .start();
      Producer jobs =
          new Producer(
                  db,
                  Plan.of("oo-j", seconds * 20)
                      .rate(20)
                      .threads(4)
                      .holds(0.1, Duration.ofSeconds(2))
                      .jobs(Duration.ZERO))
              .start();
      outbox.join();
      jobs.join();
      Duration drain = h.awaitQuiet(Duration.ofMinutes(p.pick(2, 5)), cs);
      h.stopAll();
      Reporting.Line line =
          ordered(h.figures(), outbox)
              .put("held_2s", outbox.held.get() + jobs.held.get())
              .put("drain_ms", drain.toMillis());
      line.print(p.label());
      assertCore(line);
      assertExclusive(line);
      assertProducersClean(line, outbox, jobs);
      assertInOrder(line);
      assertTrue(line.number("held_2s") > 0, line.toString());
      return line;
    }
  }

  // --- 8. poison ----------------------------------------------------------------------------

  /**
   * Freezes every dispatcher process (SIGSTOP). On SQLite a process frozen inside a write
   * transaction keeps the one write lock, and nothing else could write until it thaws: there a
   * freeze that caught one holding it is undone and tried again a moment later.
   */
  private void freeze(List<Child> cs) {
    for (int attempt = 1; ; attempt++) {
      cs.forEach(c -> c.signal("STOP"));
      if (!sqlite || db.writeLockFree()) {
        return;
      }
      cs.forEach(c -> c.signal("CONT"));
      if (attempt == 50) {
        throw new AssertionError("every freeze caught a dispatcher holding the write lock");
      }
      Child.sleep(20);
    }
  }

  /**
   * 1% of messages and jobs always fail: each is attempted exactly maxAttempts times (counted
   * attempts) and parked, healthy throughput holds up, and retries are spaced by the backoff (no
   * hot loop). Throughput is the dispatchers' alone: the rows are written while the dispatcher
   * processes are frozen (SIGSTOP), then the clock starts when they thaw.
   */
  Reporting.Line poison(boolean trickle) {
    int maxAttempts = 5; // the job queue's default, so enqueued jobs carry the same limit
    try (Harness h = harness("poison")) {
      // unordered: this counts attempts and probes (poison in ordered keys: OrderedPoisonScenario).
      // Ordered, each poison message here heads a key of its own and a claim takes heads first,
      // so one claim is mostly poison and their failures can look like an outage
      Map<String, String> o =
          options(
              "ordered",
              "false",
              "mode",
              "both",
              "max-attempts",
              Integer.toString(maxAttempts),
              "backoff",
              "exp:200:1000");
      List<Child> cs = startAll(h, processes(2), o);
      int n = p.pick(sqlite ? 1000 : 3000, sqlite ? 6000 : 20_000);
      new Producer(db, Plan.of("po-warm", 500).threads(4)).runToEnd(); // JIT warm-up
      h.awaitQuiet(Duration.ofMinutes(p.pick(2, 10)), cs);
      // baseline: healthy only
      freeze(cs);
      new Producer(db, Plan.of("po-base", n).threads(4)).runToEnd();
      cs.forEach(c -> c.signal("CONT"));
      long t0 = System.nanoTime();
      h.awaitQuiet(Duration.ofMinutes(p.pick(2, 10)), cs);
      double baseline = n * 1e9 / (System.nanoTime() - t0);
      // 1% poison, in the outbox and in the job queue
      freeze(cs);
      Producer outbox = new Producer(db, Plan.of("po-o", n).threads(4).poison(0.01)).runToEnd();
      Producer jobs =
          new Producer(db, Plan.of("po-j", n / 5).threads(2).poison(0.01).jobs(Duration.ZERO))
              .runToEnd();
      cs.forEach(c -> c.signal("CONT"));
      long t1 = System.nanoTime();
      long healthy =
          outbox.committed.get()
              + jobs.committed.get()
              - outbox.poisoned.get()
              - jobs.poisoned.get();
      awaitHealthyDelivered("po-o-%", "po-j-%", Duration.ofMinutes(p.pick(2, 10)));
      double withPoison = healthy * 1e9 / (System.nanoTime() - t1);
      // With trickle, healthy traffic goes on (as in a live system), so the outbox can tell poison
      // from an outage and park it; without, the poison is alone at the end and the outbox
      // probes it instead of parking it, as documented. Jobs have no outage detector.
      long poisonCount = outbox.poisoned.get() + jobs.poisoned.get();
      Producer healthyTraffic =
          trickle ? new Producer(db, Plan.of("po-t", 1_000_000).rate(20).threads(1)).start() : null;
      long parkStart = System.nanoTime();
      long deadline = parkStart + Duration.ofSeconds(trickle ? p.pick(45, 180) : 8).toNanos();
      while (h.parked() < poisonCount && System.nanoTime() < deadline) {
        Child.sleep(200);
      }
      long waitedForParking = (System.nanoTime() - parkStart) / 1_000_000;
      if (healthyTraffic != null) {
        healthyTraffic.stop();
        awaitHealthyDelivered("po-t-%", "po-t-%", Duration.ofMinutes(p.pick(1, 5)));
      }
      long outages = sumStatus(cs, "outages");
      h.stopAll();
      List<Object[]> perPoison =
          db.rows(
              "SELECT d.event_id, COUNT(*), COUNT(DISTINCT d.attempt), MAX(d.attempt) FROM"
                  + " rel_deliveries d JOIN rel_ledger l ON l.event_id = d.event_id WHERE"
                  + " l.poison = 1 GROUP BY d.event_id");
      long exact = 0;
      long overCounted = 0;
      long worstCalls = 0;
      long worstJobCalls = 0;
      long extra = 0;
      for (Object[] r : perPoison) {
        boolean job = ((String) r[0]).startsWith("po-j-");
        long total = ((Number) r[1]).longValue();
        long distinct = ((Number) r[2]).longValue();
        long max = ((Number) r[3]).longValue();
        if (distinct == maxAttempts && max == maxAttempts) {
          exact++;
        }
        if (max > maxAttempts) {
          overCounted++;
        }
        worstCalls = Math.max(worstCalls, total);
        if (job) {
          worstJobCalls = Math.max(worstJobCalls, total);
        }
        extra += total - distinct;
      }
      long parkedJobs = db.count("SELECT COUNT(*) FROM postbox_jobs WHERE state = 2");
      long minGap = minRetryGapMillis();
      Reporting.Line line =
          h.figures()
              .put("poison", poisonCount)
              .put("poison_jobs", jobs.poisoned.get())
              .put("parked_jobs", parkedJobs)
              .put("max_attempts", maxAttempts)
              .put("poison_attempted_exactly_max", exact)
              .put("most_calls_of_one_poison", worstCalls)
              .put("most_calls_of_one_poison_job", worstJobCalls)
              .put("uncounted_probe_calls", extra)
              .put("min_retry_gap_ms", minGap)
              .put("outages_detected", outages)
              .put("parking_wait_ms", waitedForParking)
              .put("healthy_msgs_per_s_baseline", Math.round(baseline))
              .put("healthy_msgs_per_s_with_poison", Math.round(withPoison));
      line.print(p.label());
      assertCore(line);
      assertExclusive(line);
      if (trickle) {
        assertEquals(poisonCount, line.number("parked"), "parked vs poison: " + line);
      }
      // the job queue has no outage detector: exact
      assertEquals(jobs.poisoned.get(), parkedJobs, "poison jobs parked: " + line);
      assertEquals(maxAttempts, worstJobCalls, "calls of a poison job: " + line);
      // the outbox: never more than maxAttempts counted attempts, parked ones exactly; calls beyond
      // them would be outage probes (ServerReliabilityContractTest asserts there are none while
      // traffic flows, ReliabilityContractTest that healthy messages never wait behind poison)
      assertEquals(0, overCounted, "a poison row counted past maxAttempts: " + line);
      assertTrue(
          line.number("parked") <= poisonCount && exact >= line.number("parked"),
          "parked vs poison: " + line);
      // not a hot loop: calls beyond maxAttempts are outage probes, spaced by the poll interval
      assertTrue(
          worstCalls <= 10L * maxAttempts, "a poison row was called again and again: " + line);
      assertTrue(minGap >= 10, "poison retried without a pause: " + line);
      assertTrue(withPoison >= baseline * 0.5, "1% poison halved the healthy throughput: " + line);
      return line;
    }
  }

  /**
   * Regression: poison rows that fail together look like a transport outage. The probes used to
   * take the oldest due rows, i.e. the poison, with pauses doubling to 30 s, so healthy messages
   * committed meanwhile waited behind them (seen: > 20 s). Probes take the newest row now, so the
   * first healthy message ends the false outage; the poison is still parked.
   */
  Reporting.Line poisonStall() {
    try (Harness h = harness("poison-stall")) {
      Child c = h.start("d", options("max-attempts", "10", "backoff", "fixed:100"));
      new Producer(db, Plan.of("ps-p", 20).threads(1).poison(1.0)).runToEnd();
      Child.sleep(1000);
      int seconds = p.pick(15, 60);
      new Producer(db, Plan.of("ps-h", seconds * 20).rate(20).threads(1)).runToEnd();
      Child.sleep(5000);
      long undelivered =
          db.count(
              "SELECT COUNT(*) FROM rel_ledger l WHERE l.event_id LIKE 'ps-h-%' AND NOT EXISTS"
                  + " (SELECT 1 FROM rel_deliveries d WHERE d.event_id = l.event_id AND d.ok = 1)");
      Instant now = db.now();
      List<Object[]> ids =
          db.rows("SELECT event_id FROM rel_ledger WHERE event_id LIKE 'ps-h-%' ORDER BY event_id");
      List<Instant> created =
          db.instants(
              "SELECT created_at FROM rel_ledger WHERE event_id LIKE 'ps-h-%' ORDER BY event_id");
      Map<String, List<Instant>> delivered = h.deliveriesByEvent();
      long worst = 0;
      for (int i = 0; i < ids.size(); i++) {
        Instant first =
            delivered.getOrDefault((String) ids.get(i)[0], List.of()).stream()
                .min(Comparator.naturalOrder())
                .orElse(now);
        worst = Math.max(worst, Duration.between(created.get(i), first).toMillis());
      }
      long outages = c.statusFigure("outages");
      long parked = h.parked();
      h.stopAll();
      Reporting.Line line =
          new Reporting.Line("poison-stall", db.label)
              .put("poison", 20)
              .put("parked", parked)
              .put("healthy", ids.size())
              .put("healthy_undelivered", undelivered)
              .put("worst_healthy_latency_ms", worst)
              .put("outages_detected", outages);
      line.print(p.label());
      return line;
    }
  }

  private void awaitHealthyDelivered(String outboxLike, String jobsLike, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    String sql =
        "SELECT COUNT(*) FROM rel_ledger l WHERE l.poison = 0 AND (l.event_id LIKE ? OR"
            + " l.event_id LIKE ?) AND NOT EXISTS (SELECT 1 FROM rel_deliveries d WHERE"
            + " d.event_id = l.event_id AND d.ok = 1)";
    while (db.count(sql, outboxLike, jobsLike) > 0) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("healthy messages not delivered within " + timeout);
      }
      Child.sleep(50);
    }
  }

  /** The smallest gap between two consecutive attempts of one poison row. */
  private long minRetryGapMillis() {
    Map<String, List<Instant>> at = new java.util.HashMap<>();
    try (var c = db.ds().getConnection();
        var ps =
            c.prepareStatement(
                "SELECT d.event_id, d.delivered_at FROM rel_deliveries d JOIN rel_ledger l ON"
                    + " l.event_id = d.event_id WHERE l.poison = 1");
        var rs = ps.executeQuery()) {
      while (rs.next()) {
        at.computeIfAbsent(rs.getString(1), k -> new ArrayList<>())
            .add(db.dialect.readInstant(rs, "delivered_at"));
      }
    } catch (java.sql.SQLException e) {
      throw new IllegalStateException(e);
    }
    long min = Long.MAX_VALUE;
    for (List<Instant> times : at.values()) {
      times.sort(Comparator.naturalOrder());
      for (int i = 1; i < times.size(); i++) {
        min = Math.min(min, Duration.between(times.get(i - 1), times.get(i)).toMillis());
      }
    }
    return min == Long.MAX_VALUE ? -1 : min;
  }

  // --- 9. long job --------------------------------------------------------------------------

  /**
   * Jobs running for several leases keep their rows by renewal and run once; then, where two
   * processes run (not on SQLite), a process is frozen (SIGSTOP) past its lease, another takes the
   * job over, and the frozen one's completion, once it thaws, is rejected.
   */
  Reporting.Line longJob() {
    boolean staleCompletion = !sqlite;
    try (Harness h = harness("long-job")) {
      Map<String, String> o =
          options("mode", "jobs", "lease-ms", "2000", "concurrency", "4", "pool", "10");
      List<Child> cs = startAll(h, processes(2), o);
      int jobs = p.pick(4, 12);
      long runMillis = p.pick(7000L, 20_000L); // 3.5 and 10 leases
      for (int i = 0; i < jobs; i++) {
        enqueueSleeping("lj-a-" + i, runMillis, runMillis);
      }
      h.awaitQuiet(Duration.ofMinutes(2), cs);
      long runsA = db.count("SELECT COUNT(*) FROM rel_deliveries WHERE event_id LIKE 'lj-a-%'");
      long heldA =
          db.count(
              "SELECT COUNT(*) FROM rel_deliveries WHERE event_id LIKE 'lj-a-%' AND lease_ok = 1");
      long staleRejected = -1;
      long newOwnerLost = -1;
      long rejectedAfterMillis = -1;
      long runsB = 0;
      if (staleCompletion) {
        // the new owner's run ends long after the frozen one's stale completion; whichever
        // completion the database accepted, the other one is counted as a lost lease by its process
        enqueueSleeping("lj-b", 6000, 15_000);
        String owner = awaitLeasedBy("lj-b", null, Duration.ofSeconds(30));
        Child frozen = cs.stream().filter(c -> c.instance.equals(owner)).findFirst().orElseThrow();
        Child other = cs.stream().filter(c -> c != frozen).findFirst().orElseThrow();
        long frozenLostBefore = frozen.statusFigure("lease_lost");
        long otherLostBefore = other.statusFigure("lease_lost");
        frozen.signal("STOP");
        try {
          awaitLeasedBy("lj-b", other.instance, Duration.ofSeconds(30));
        } finally {
          frozen.signal("CONT");
        }
        long thawed = System.nanoTime();
        long deadline = thawed + Duration.ofSeconds(60).toNanos();
        while (frozen.statusFigure("lease_lost") == frozenLostBefore
            && System.nanoTime() < deadline) {
          Child.sleep(20);
        }
        if (frozen.statusFigure("lease_lost") > frozenLostBefore) {
          rejectedAfterMillis = (System.nanoTime() - thawed) / 1_000_000;
        }
        h.awaitQuiet(Duration.ofMinutes(1), cs);
        runsB = db.count("SELECT COUNT(*) FROM rel_deliveries WHERE event_id = 'lj-b'");
        assertEquals(
            1,
            db.count(
                "SELECT COUNT(*) FROM postbox_jobs WHERE state = 1 AND payload LIKE '%\"lj-b\"%'"));
        h.stopAll(); // each process prints its final figures as it stops
        staleRejected = frozen.statusFigure("lease_lost") - frozenLostBefore;
        newOwnerLost = other.statusFigure("lease_lost") - otherLostBefore;
      }
      h.stopAll();
      Reporting.Line line =
          new Reporting.Line("long-job", db.label)
              .put("jobs", jobs)
              .put("run_ms", runMillis)
              .put("lease_ms", 2000)
              .put("executions", runsA)
              .put("lease_held_at_end", heldA)
              .put("stale_executions", runsB)
              .put("stale_completions_rejected", staleRejected)
              .put("stale_rejected_after_thaw_ms", rejectedAfterMillis)
              .put("new_owner_completions_rejected", newOwnerLost);
      line.print(p.label());
      assertEquals(jobs, runsA, "each long job runs exactly once: " + line);
      assertEquals(jobs, heldA, "a long job lost its lease while running: " + line);
      if (staleCompletion) {
        assertEquals(1, staleRejected, "the stale completion was not rejected: " + line);
        assertEquals(
            0, newOwnerLost, "the stale completion finished the job, not its new owner: " + line);
        assertEquals(2, runsB, "the frozen and the new owner each ran the job once: " + line);
      }
      return line;
    }
  }

  /** Enqueues a job that works {@code millis} on its first attempt, {@code retryMillis} after. */
  private void enqueueSleeping(String id, long millis, long retryMillis) {
    try (var c = db.ds().getConnection()) {
      c.setAutoCommit(false);
      try (var ps =
          c.prepareStatement(
              "INSERT INTO rel_ledger (event_id, msg_key, seq, poison, due_at, created_at) VALUES"
                  + " (?, 'k', 0, 0, "
                  + db.nowSql()
                  + ", "
                  + db.nowSql()
                  + ")")) {
        ps.setString(1, id);
        ps.executeUpdate();
      }
      dev.postbox.Jobs.builder()
          .build()
          .enqueue(
              c,
              dev.postbox.Job.of(
                      "rel",
                      "{\"id\":\""
                          + id
                          + "\",\"sleep\":"
                          + millis
                          + ",\"retrySleep\":"
                          + retryMillis
                          + "}")
                  .dedupeKey(id));
      c.commit();
    } catch (java.sql.SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Waits until the job is leased by {@code instance} (any instance if null); returns it. */
  private String awaitLeasedBy(String id, String instance, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      Object owner =
          db.value(
              "SELECT leased_by FROM postbox_jobs WHERE COALESCE(running_key, dedupe_key) = ?", id);
      if (owner != null && (instance == null || instance.equals(owner))) {
        return (String) owner;
      }
      Child.sleep(20);
    }
    throw new AssertionError(id + " not leased by " + instance + " within " + timeout);
  }
}
