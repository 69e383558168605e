package dev.postbox.reliability;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One scenario's run: starts dispatcher processes (and always ends them), kills them with the
 * bookkeeping the checker needs, waits for quiescence, and computes the figures from the ledger.
 */
final class Harness implements AutoCloseable {
  static final List<String> TABLES = List.of("postbox_outbox", "postbox_jobs");

  final RelDb db;
  final String scenario;
  final Profile profile;
  private final List<Child> children = new CopyOnWriteArrayList<>();
  private final List<Kill> kills = new ArrayList<>();
  // processes are started from several threads at once (Scenarios.startAll): two that read the
  // same count got the same instance id, and the second one's registration insert failed
  private final AtomicInteger started = new AtomicInteger();

  /** A kill -9: when (database clock, right after the process died) and what it held then. */
  record Kill(String instance, Instant at, List<String> held) {}

  Harness(RelDb db, String scenario, Profile profile) {
    this.db = db;
    this.scenario = scenario;
    this.profile = profile;
  }

  /** Options every scenario starts from: fast polling, a 30 s lease, small work per delivery. */
  static Map<String, String> options(String... keyValues) {
    Map<String, String> o = new LinkedHashMap<>();
    o.put("mode", "outbox");
    o.put("poll-ms", "50");
    o.put("lease-ms", "30000");
    o.put("batch", "50");
    o.put("concurrency", "8");
    o.put("work-ms", "2");
    o.put("pool", "6");
    for (int i = 0; i < keyValues.length; i += 2) {
      o.put(keyValues[i], keyValues[i + 1]);
    }
    return o;
  }

  /** A fresh instance id for this scenario: each (re)started process gets a new one. */
  String nextInstance(String role) {
    return scenario + "-" + db.label + "-" + role + "-" + started.incrementAndGet();
  }

  Child start(String role, Map<String, String> options) {
    return start(role, options, null);
  }

  Child start(String role, Map<String, String> options, String fakeTime) {
    Child child = Child.start(db, nextInstance(role), options, fakeTime);
    children.add(child);
    return child.awaitReady(Duration.ofSeconds(60));
  }

  /**
   * kill -9 of {@code child}; returns how many rows it held a lease on when it died (counted at
   * once after its death, before any of those leases can expire) and remembers them for the
   * recovery time.
   */
  int kill9(Child child) {
    child.kill9();
    Instant at = db.now();
    List<String> held = new ArrayList<>();
    for (Object[] row :
        db.rows(
            "SELECT event_id FROM postbox_outbox WHERE leased_by = ? AND state = 0",
            child.instance)) {
      held.add((String) row[0]);
    }
    // a claimed job's key (its event id here) is in running_key: the claim moved it there
    for (Object[] row :
        db.rows(
            // a started job keeps its dedupe key in running_key
            "SELECT COALESCE(running_key, dedupe_key) FROM postbox_jobs"
                + " WHERE leased_by = ? AND state = 0",
            child.instance)) {
      held.add((String) row[0]);
    }
    kills.add(new Kill(child.instance, at, held));
    return held.size();
  }

  /** Rows leased by {@code instance} with a live lease now (the brief's pre-kill count). */
  long liveLeases(String instance) {
    long n = 0;
    for (String table : TABLES) {
      n +=
          db.count(
              "SELECT COUNT(*) FROM "
                  + table
                  + " WHERE leased_by = ? AND state = 0 AND available_at > "
                  + db.nowSql(),
              instance);
    }
    return n;
  }

  long pending() {
    long n = 0;
    for (String table : TABLES) {
      // a job waiting for admission (3, or 5 until due) is pending too; the outbox has neither
      n += db.count("SELECT COUNT(*) FROM " + table + " WHERE state IN (0, 3, 5)");
    }
    return n;
  }

  long parked() {
    long n = 0;
    for (String table : TABLES) {
      n += db.count("SELECT COUNT(*) FROM " + table + " WHERE state = 2");
    }
    return n;
  }

  /**
   * Waits until no row is pending in either table, failing if a process that should run died.
   * Returns how long it took.
   */
  Duration awaitQuiet(Duration timeout, List<Child> mustLive) {
    long start = System.nanoTime();
    long deadline = start + timeout.toNanos();
    while (true) {
      long pending = pending();
      if (pending == 0) {
        return Duration.ofNanos(System.nanoTime() - start);
      }
      for (Child c : mustLive) {
        if (!c.alive()) {
          throw new AssertionError(
              c.instance + " died: " + Child.tail(c.err, 4000) + "\n" + Child.tail(c.out, 500));
        }
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError(
            scenario
                + " on "
                + db.label
                + ": "
                + pending
                + " rows still pending after "
                + timeout
                + "; figures so far: "
                + figures());
      }
      Child.sleep(100);
    }
  }

  /** Stops every child gracefully (SIGTERM, then kill -9). */
  void stopAll() {
    List<Thread> stoppers = new ArrayList<>();
    for (Child c : children) {
      stoppers.add(Thread.ofPlatform().start(() -> c.stop(Duration.ofSeconds(20))));
    }
    for (Thread t : stoppers) {
      try {
        t.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** The ledger figures: lost, phantom, dup, double leases, and the kills' figures. */
  Reporting.Line figures() {
    Reporting.Line line = new Reporting.Line(scenario, db.label);
    long committed = db.count("SELECT COUNT(*) FROM rel_ledger");
    long delivered = db.count("SELECT COUNT(*) FROM rel_deliveries WHERE ok = 1");
    long distinct = db.count("SELECT COUNT(DISTINCT event_id) FROM rel_deliveries WHERE ok = 1");
    long lost =
        db.count(
            "SELECT COUNT(*) FROM rel_ledger l WHERE l.poison = 0 AND NOT EXISTS (SELECT 1 FROM"
                + " rel_deliveries d WHERE d.event_id = l.event_id AND d.ok = 1)");
    long phantom =
        db.count(
            "SELECT COUNT(DISTINCT d.event_id) FROM rel_deliveries d WHERE NOT EXISTS (SELECT 1"
                + " FROM rel_ledger l WHERE l.event_id = d.event_id)");
    // one claim of a row (its claims count) is one lease: two instances delivering under the same
    // claim means one of them did not hold it (attempts repeat: a row of a run behind its key's
    // head is charged its attempt only with its outcome)
    long doubleLease =
        db.count(
            "SELECT COUNT(*) FROM (SELECT event_id, claims FROM rel_deliveries WHERE ok = 1 GROUP"
                + " BY event_id, claims HAVING COUNT(DISTINCT instance_id) > 1) x");
    long leaseBad = db.count("SELECT COUNT(*) FROM rel_deliveries WHERE lease_ok = 0");
    line.put("committed", committed)
        .put("delivered", delivered)
        .put("distinct", distinct)
        .put("lost", lost)
        .put("phantom", phantom)
        .put("dup", delivered - distinct)
        .put("double_lease", doubleLease)
        .put("lease_not_held", leaseBad)
        .put("parked", parked());
    if (leaseBad > 0) {
      // explain each call made without a live lease: whose lease, how far past expiry, how stalled
      List<String> why = new ArrayList<>();
      for (Object[] r :
          db.rows(
              "SELECT event_id, instance_id, attempt, lease_owner, lease_left_ms FROM"
                  + " rel_deliveries WHERE lease_ok = 0")) {
        if (why.size() < 5) {
          why.add(
              r[0] + "/" + r[1] + "/attempt " + r[2] + "/owner " + r[3] + "/left " + r[4] + "ms");
        }
      }
      line.put("lease_not_held_detail", String.join(",", why).replace(' ', '_'));
    }
    long stall = children.stream().mapToLong(c -> c.statusFigure("max_stall_ms")).max().orElse(0);
    line.put("max_process_stall_ms", stall);
    if (!kills.isEmpty()) {
      line.put("kills", kills.size())
          .put("inflight_at_kill", kills.stream().mapToInt(k -> k.held().size()).sum())
          .put("recovery_ms", killRecoveryMillis());
    }
    return line;
  }

  /**
   * The longest time, over all kills, from the death of a process until the last of the rows it
   * held was delivered again (by the database clock): about one lease when nothing else is slow.
   */
  long killRecoveryMillis() {
    Map<String, List<Instant>> deliveredAt = deliveriesByEvent();
    long worst = 0;
    for (Kill k : kills) {
      for (String id : k.held()) {
        Instant first = null;
        for (Instant t : deliveredAt.getOrDefault(id, List.of())) {
          if (t.isAfter(k.at()) && (first == null || t.isBefore(first))) {
            first = t;
          }
        }
        if (first == null) {
          return -1; // never delivered again: the lost figure says why
        }
        worst = Math.max(worst, Duration.between(k.at(), first).toMillis());
      }
    }
    return worst;
  }

  /** Every successful delivery's time, by event id. */
  Map<String, List<Instant>> deliveriesByEvent() {
    Map<String, List<Instant>> out = new HashMap<>();
    try (Connection c = db.ds().getConnection();
        PreparedStatement ps =
            c.prepareStatement("SELECT event_id, delivered_at FROM rel_deliveries WHERE ok = 1");
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        out.computeIfAbsent(rs.getString(1), k -> new ArrayList<>())
            .add(db.dialect.readInstant(rs, "delivered_at"));
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
    return out;
  }

  List<Kill> kills() {
    return List.copyOf(kills);
  }

  List<Child> children() {
    return children;
  }

  @Override
  public void close() {
    stopAll();
  }
}
