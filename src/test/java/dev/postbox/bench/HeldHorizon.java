package dev.postbox.bench;

import dev.postbox.Database;
import dev.postbox.bench.PerformanceHarness.Wake;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Held vacuum horizon (PostgreSQL) or purge lag (MariaDB): W2's producers and contestants ({@link
 * W2Contestant}, {@code wakeUp()} after commit) at a fixed offered rate while, in the middle phase,
 * one transaction on another connection stays open: a REPEATABLE READ snapshot on PostgreSQL (no
 * VACUUM can remove a row deleted since), a consistent snapshot on MariaDB (purge removes no
 * delete-marked record since). Per window: committed and delivered msg/s, commit→delivery p50/p99
 * of the messages committed in it, the table's dead tuples or InnoDB's history list length, and
 * what a claim costs right then. Postbox, then the floor, the schema re-created before each.
 *
 * <p>Properties: {@code bench.horizonRate} (msg/s over all producers, default 500), {@code
 * bench.horizonPhases} (seconds before, during and after the open transaction, default 60,300,120),
 * {@code bench.horizonWindow} (seconds, default 10), {@code bench.horizonSides} (default
 * postbox,floor).
 */
final class HeldHorizon {

  private final PerformanceHarness h;
  private final AtomicLong retries = new AtomicLong();
  private final int rate;
  private final long[] phases;
  private final long window;
  private final List<String> sides;

  /**
   * {@code rate} msg/s offered, {@code phases} before, during and after the open transaction,
   * figures per {@code window}; {@code sides}: "postbox" and "floor", in the order they run.
   */
  HeldHorizon(
      PerformanceHarness h, int rate, List<Duration> phases, Duration window, List<String> sides) {
    this.h = h;
    this.rate = rate;
    this.phases = phases.stream().mapToLong(Duration::toNanos).toArray();
    this.window = window.toNanos();
    this.sides = List.copyOf(sides);
  }

  /** As the {@code bench.horizon…} system properties say (see the class comment). */
  static HeldHorizon fromSystemProperties(PerformanceHarness h) {
    return new HeldHorizon(
        h,
        Integer.getInteger("bench.horizonRate", 500),
        Arrays.stream(System.getProperty("bench.horizonPhases", "60,300,120").split(","))
            .map(s -> Duration.ofSeconds(Long.parseLong(s.strip())))
            .toList(),
        Duration.ofSeconds(Integer.getInteger("bench.horizonWindow", 10)),
        Arrays.stream(System.getProperty("bench.horizonSides", "postbox,floor").split(","))
            .map(String::strip)
            .toList());
  }

  /**
   * The table and the database at the end of a window: dead tuples or history list length, the
   * candidate scan's cost as printed, and the database's page reads per delivered message.
   */
  record Sample(long backlog, String scan, double pagesPerMessage) {}

  String run(List<BenchDb> dbs) {
    StringBuilder md = new StringBuilder("### Held vacuum horizon\n\n");
    md.append(
        String.format(
            "%d producers at %d msg/s in all (W2's transactions, 100 keys), the contestant"
                + " delivering; %d s as usual, %d s with one transaction open on another connection"
                + " (PostgreSQL: `REPEATABLE READ` after a `SELECT count(*)` of the outbox;"
                + " MariaDB: `START TRANSACTION WITH CONSISTENT SNAPSHOT` and the same count), %d s"
                + " after it commits. Per %d s window: msg/s committed / delivered, p50/p99 of"
                + " commit→delivery of the messages committed in it; at its end the outbox's"
                + " `n_dead_tup` (PostgreSQL, lags ~1 s) or InnoDB's history list length"
                + " (MariaDB), the claim's candidate scan (`SELECT id … WHERE state = 0 AND"
                + " available_at <= now ORDER BY available_at, id LIMIT %d`: PostgreSQL shared"
                + " buffers / ms of `EXPLAIN (ANALYZE, BUFFERS)`, MariaDB ms of one run) and the"
                + " whole database's page reads per delivered message (PostgreSQL `blks_hit +"
                + " blks_read`, MariaDB `Innodb_buffer_pool_read_requests`). Back to normal: the"
                + " first window after the commit from which every window's p99 is at most 1.5×"
                + " the p99 before (its first window left out).%n%n",
            h.config.producers(),
            rate,
            phases[0] / 1_000_000_000L,
            phases[1] / 1_000_000_000L,
            phases[2] / 1_000_000_000L,
            window / 1_000_000_000L,
            h.config.batchSize()));
    for (BenchDb db : dbs) {
      if (db.database() == Database.POSTGRESQL) {
        md.append("PostgreSQL server: ")
            .append(SustainedDrain.autovacuumSettings(db))
            .append(
                "; Postbox vacuums the table itself every 50,000 finished rows (`vacuumEvery`), the floor never.\n\n");
      }
      if (db.database() == Database.POSTGRESQL || db.database() == Database.MYSQL) {
        for (String side : sides) {
          md.append(measure(db, side.equals("postbox"))).append('\n');
        }
      }
    }
    return md.toString();
  }

  private String measure(BenchDb db, boolean postbox) {
    String what = "horizon " + db.name() + " " + (postbox ? "Postbox" : "floor");
    long length = phases[0] + phases[1] + phases[2];
    int producers = h.config.producers();
    int perProducer = (int) (rate * (length / 1e9) / producers);
    int total = producers * perProducer;
    int windows = (int) (length / window);
    Deliveries d = new Deliveries(total);
    Progress p = new Progress(total);
    List<Sample> samples = new ArrayList<>();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    W2Contestant contestant = null;
    Thread holder = null;
    Thread sampler = null;
    try {
      db.reset();
      contestant = W2Contestant.start(h, db, postbox, Wake.IN_PROCESS, d, p, retries);
      long start = System.nanoTime() + 500_000_000L; // after the producers' connections are open
      holder = holdOpen(db, start + phases[0], start + phases[0] + phases[1], failure);
      sampler = sample(db, p, start, windows, samples, failure);
      Producers.run(
          db,
          producers,
          perProducer,
          contestant.enqueuer(),
          contestant.afterCommit(),
          retries,
          (producer, i) ->
              sleepUntil(start + ((long) i * producers + producer) * 1_000_000_000L / rate));
      p.await(h.config.timeout(), total + " messages");
      sampler.join();
      holder.join();
      if (failure.get() != null) {
        throw new IllegalStateException("holding or sampling failed", failure.get());
      }
      HorizonTable.Result r =
          HorizonTable.of(db.database() == Database.POSTGRESQL, d, total, start, window, phases)
              .render(samples, rate);
      h.log("%s: %s", what, r.summary());
      return "#### %s, %s%n%n%s%n%s%n"
          .formatted(db.name(), postbox ? "Postbox" : "floor", r.table(), r.summary());
    } catch (Exception e) {
      h.problem(what + ": failed: " + e);
      return "";
    } finally {
      for (Thread t : new Thread[] {sampler, holder}) {
        if (t != null) {
          t.interrupt();
        }
      }
      Throwable floorFailure = contestant == null ? null : contestant.stop();
      if (floorFailure != null) {
        h.problem(what + ": floor loop failed: " + floorFailure);
      }
      h.checkDrained(what, db, d);
    }
  }

  /**
   * Opens the transaction at {@code from} on its own connection and commits it at {@code until}.
   */
  private Thread holdOpen(BenchDb db, long from, long until, AtomicReference<Throwable> failure) {
    return Thread.ofPlatform()
        .name("bench-horizon-hold")
        .start(
            () -> {
              try {
                sleepUntil(from);
                try (Connection c = db.dataSource().getConnection();
                    Statement s = c.createStatement()) {
                  c.setAutoCommit(false);
                  c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
                  if (db.database() == Database.MYSQL) {
                    s.execute("START TRANSACTION WITH CONSISTENT SNAPSHOT");
                  }
                  try (ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM postbox_outbox")) {
                    rs.next();
                    h.log("horizon: transaction open, %d rows in its snapshot", rs.getLong(1));
                  }
                  sleepUntil(until);
                  c.commit();
                  h.log("horizon: transaction committed");
                }
              } catch (InterruptedException e) {
                // the run failed: closing the connection rolls the transaction back
              } catch (Throwable e) {
                failure.set(e);
              }
            });
  }

  /** Samples the table at the end of every window until {@code windows} are done. */
  private Thread sample(
      BenchDb db,
      Progress p,
      long start,
      int windows,
      List<Sample> out,
      AtomicReference<Throwable> failure) {
    return Thread.ofPlatform()
        .name("bench-horizon-sampler")
        .start(
            () -> {
              try {
                long pages = pages(db);
                long delivered = 0;
                for (int k = 0; k < windows; k++) {
                  sleepUntil(start + (k + 1) * window);
                  long done = p.done();
                  long pagesNow = pages(db);
                  Sample s =
                      sampleNow(
                          db,
                          done == delivered
                              ? Double.NaN
                              : (pagesNow - pages) / (double) (done - delivered));
                  pages = pagesNow;
                  delivered = done;
                  out.add(s);
                  h.log(
                      "horizon: %d s, %d delivered, %s %d, scan %s, %s pages/msg",
                      (k + 1) * window / 1_000_000_000L,
                      done,
                      db.database() == Database.POSTGRESQL ? "dead tuples" : "history length",
                      s.backlog(),
                      s.scan(),
                      Stats.decimal(s.pagesPerMessage(), 1));
                }
              } catch (InterruptedException e) {
                // the run failed
              } catch (Throwable e) {
                failure.set(e);
              }
            });
  }

  private Sample sampleNow(BenchDb db, double pagesPerMessage) throws SQLException {
    if (db.database() == Database.POSTGRESQL) {
      long[] scan = SustainedDrain.claimScan(db, h.config.batchSize());
      return new Sample(
          SustainedDrain.stats(db)[0],
          scan[0] + " / " + Stats.decimal(scan[1] / 1e3, 2),
          pagesPerMessage);
    }
    String candidates =
        "SELECT id FROM postbox_outbox WHERE state = 0 AND available_at <= UTC_TIMESTAMP(6)"
            + " ORDER BY available_at, id LIMIT "
            + h.config.batchSize();
    long history = db.historyLength();
    long nanos;
    try (Connection c = db.dataSource().getConnection();
        Statement s = c.createStatement()) {
      long before = System.nanoTime();
      try (ResultSet rs = s.executeQuery(candidates)) {
        while (rs.next()) {
          rs.getLong(1);
        }
      }
      nanos = System.nanoTime() - before;
    }
    return new Sample(history, Stats.millis(nanos), pagesPerMessage);
  }

  /** The whole database's page reads so far (buffer hits and reads). */
  private static long pages(BenchDb db) {
    return db.count(
        db.database() == Database.POSTGRESQL
            ? "SELECT blks_hit + blks_read FROM pg_stat_database WHERE datname = current_database()"
            : "SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS"
                + " WHERE VARIABLE_NAME = 'INNODB_BUFFER_POOL_READ_REQUESTS'");
  }

  private static void sleepUntil(long nanoTime) throws InterruptedException {
    for (long wait = nanoTime - System.nanoTime(); wait > 0; wait = nanoTime - System.nanoTime()) {
      Thread.sleep(Duration.ofNanos(wait));
    }
  }
}
