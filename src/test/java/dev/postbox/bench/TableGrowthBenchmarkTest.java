package dev.postbox.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.postbox.Database;
import dev.postbox.Dispatcher;
import dev.postbox.Message;
import dev.postbox.Outbox;
import dev.postbox.PostboxException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Table growth: {@code bench.growthMessages} (10,000,000) messages through one outbox at a steady
 * offered rate ({@code bench.growthRate}, 10,000 msg/s; {@code bench.growthPerTransaction}, 10
 * messages per producer transaction in one {@code outbox.addAll}, 100 keys, ordered), a Postbox
 * dispatcher at the defaults delivering to a no-op transport, woken after each commit. Every {@code
 * bench.growthWindow} (60) seconds: messages committed and delivered, and the outbox's size on disk
 * (PostgreSQL: {@code pg_total_relation_size}, of it heap and indexes, live and dead tuples,
 * vacuums; MariaDB: the allocated size of the outbox's and its keys table's tablespace files, which
 * InnoDB never shrinks, and the history list length). Checks every message was delivered exactly
 * once. Writes the report to {@code target/table-growth.md}:
 *
 * <pre>mvn -B test -Pbench -Dtest=TableGrowthBenchmarkTest -Dbench.db=postgresql,mariadb</pre>
 */
@Tag("bench")
class TableGrowthBenchmarkTest {
  private static final double MIB = 1024.0 * 1024.0;

  private final PrintStream out = System.out;
  private final int total = Integer.getInteger("bench.growthMessages", 10_000_000);
  private final int rate = Integer.getInteger("bench.growthRate", 10_000);
  private final int perTransaction = Integer.getInteger("bench.growthPerTransaction", 10);
  private final long window =
      Duration.ofSeconds(Integer.getInteger("bench.growthWindow", 60)).toNanos();

  /** The outbox at the end of a window: its size on disk in bytes and what it is made of. */
  record Sample(long seconds, long committed, long delivered, long bytes, String detail) {}

  @Test
  void benchmark() throws Exception {
    PerformanceHarness.Config config =
        PerformanceHarness.Config.fromSystemProperties(PerformanceHarness.Config.full());
    PerformanceHarness h = PerformanceHarness.forWorkload(config, out);
    StringBuilder md = new StringBuilder("### Table growth\n\n");
    md.append(
        String.format(
            Locale.ROOT,
            "%,d messages offered at %,d msg/s by %d producers (%d per transaction in one `addAll`,"
                + " 100 keys), Postbox at the defaults (ordered by key, `vacuumEvery` 50,000 on"
                + " PostgreSQL), woken after each commit.%n%n",
            total,
            rate,
            config.producers(),
            perTransaction));
    for (String name : System.getProperty("bench.db", "postgresql,mariadb").split(",")) {
      Database database = name.strip().equals("mariadb") ? Database.MYSQL : Database.POSTGRESQL;
      try (BenchDb db = BenchDb.open(database)) {
        md.append(measure(h, db, config.producers()));
      }
    }
    out.println(md);
    Path classes = Path.of(getClass().getProtectionDomain().getCodeSource().getLocation().toURI());
    Files.writeString(classes.getParent().resolve("table-growth.md"), md);
    assertEquals(List.of(), h.problems(), md.toString());
  }

  private String measure(PerformanceHarness h, BenchDb db, int producers) throws Exception {
    String what = "table growth " + db.name();
    db.reset();
    db.settle();
    Deliveries d = new Deliveries(total);
    Progress p = new Progress(total);
    AtomicLong committed = new AtomicLong();
    AtomicLong retries = new AtomicLong();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    List<Sample> samples = new ArrayList<>();
    Outbox outbox = Outbox.builder().build();
    Dispatcher dispatcher =
        h.dispatcher(db.dataSource(), p).outbox(outbox, h.countingTransport(d)).build();
    dispatcher.start();
    long start = System.nanoTime() + 500_000_000L;
    List<Thread> threads = new ArrayList<>();
    try {
      for (int j = 0; j < producers; j++) {
        int producer = j;
        threads.add(
            Thread.ofPlatform()
                .name("bench-growth-producer-" + j)
                .start(
                    () ->
                        produce(
                            db,
                            outbox,
                            dispatcher,
                            producer,
                            producers,
                            start,
                            d,
                            committed,
                            retries,
                            failure)));
      }
      for (int k = 1; p.done() < total && failure.get() == null; k++) {
        sleepUntil(start + k * window);
        Sample s = sample(db, k * window / 1_000_000_000L, committed.get(), p.done());
        samples.add(s);
        h.log(
            "%s: %d s, %,d committed, %,d delivered, %s MiB on disk (%s)",
            what,
            s.seconds(),
            s.committed(),
            s.delivered(),
            Stats.decimal(s.bytes() / MIB, 1),
            s.detail());
      }
      for (Thread t : threads) {
        t.join();
      }
      if (failure.get() != null) {
        throw new IllegalStateException("a producer failed", failure.get());
      }
      p.await(h.config.timeout(), total + " messages");
    } catch (Exception e) {
      h.problem(what + ": failed: " + e);
    } finally {
      threads.forEach(Thread::interrupt);
      dispatcher.close();
      h.checkDrained(what, db, d);
    }
    if (samples.isEmpty() || samples.get(samples.size() - 1).delivered() < total) {
      samples.add(
          sample(db, (System.nanoTime() - start) / 1_000_000_000L, committed.get(), p.done()));
    }
    return report(db, samples, retries.get());
  }

  private void produce(
      BenchDb db,
      Outbox outbox,
      Dispatcher dispatcher,
      int producer,
      int producers,
      long start,
      Deliveries d,
      AtomicLong committed,
      AtomicLong retries,
      AtomicReference<Throwable> failure) {
    try (Connection c = db.dataSource().getConnection()) {
      c.setAutoCommit(false);
      for (long first = (long) producer * perTransaction;
          first < total;
          first += (long) producers * perTransaction) {
        sleepUntil(start + first * 1_000_000_000L / rate);
        int end = (int) Math.min(total, first + perTransaction);
        while (true) {
          try {
            List<Message> messages = new ArrayList<>(end - (int) first);
            for (int i = (int) first; i < end; i++) {
              messages.add(
                  Message.of("order.placed", Deliveries.payload(i)).key("customer-" + i % 100));
            }
            outbox.addAll(c, messages);
            c.commit();
            break;
          } catch (SQLException | PostboxException e) {
            c.rollback(); // a deadlock on the keys table (MariaDB): the transaction again
            retries.incrementAndGet();
          }
        }
        for (int i = (int) first; i < end; i++) {
          d.committed(i);
        }
        committed.addAndGet(end - first);
        dispatcher.wakeUp();
      }
    } catch (InterruptedException e) {
      // the run failed
    } catch (Throwable e) {
      failure.set(e);
    }
  }

  private static Sample sample(BenchDb db, long seconds, long committed, long delivered)
      throws SQLException {
    try (Connection c = db.dataSource().getConnection();
        Statement s = c.createStatement()) {
      if (db.database() == Database.POSTGRESQL) {
        try (ResultSet rs =
            s.executeQuery(
                "SELECT pg_total_relation_size(relid), pg_relation_size(relid),"
                    + " pg_indexes_size(relid), n_live_tup, n_dead_tup,"
                    + " vacuum_count + autovacuum_count FROM pg_stat_user_tables"
                    + " WHERE relname = 'postbox_outbox'")) {
          rs.next();
          return new Sample(
              seconds,
              committed,
              delivered,
              rs.getLong(1),
              String.format(
                  Locale.ROOT,
                  "heap %s MiB, indexes %s MiB; %,d live / %,d dead tuples, %d vacuums",
                  Stats.decimal(rs.getLong(2) / MIB, 1),
                  Stats.decimal(rs.getLong(3) / MIB, 1),
                  rs.getLong(4),
                  rs.getLong(5),
                  rs.getLong(6)));
        }
      }
      long outboxFile = 0;
      long keysFile = 0;
      try (ResultSet rs =
          s.executeQuery(
              "SELECT NAME, ALLOCATED_SIZE FROM information_schema.INNODB_SYS_TABLESPACES"
                  + " WHERE NAME IN (CONCAT(DATABASE(), '/postbox_outbox'),"
                  + " CONCAT(DATABASE(), '/postbox_outbox_keys'))")) {
        while (rs.next()) {
          if (rs.getString(1).endsWith("_keys")) {
            keysFile = rs.getLong(2);
          } else {
            outboxFile = rs.getLong(2);
          }
        }
      }
      long history = db.historyLength();
      return new Sample(
          seconds,
          committed,
          delivered,
          outboxFile + keysFile,
          String.format(
              Locale.ROOT,
              "outbox file %s MiB, keys file %s MiB; history list length %,d",
              Stats.decimal(outboxFile / MIB, 1),
              Stats.decimal(keysFile / MIB, 1),
              history));
    }
  }

  /** About ten evenly spaced samples and the last, and the largest size in each half of the run. */
  private String report(BenchDb db, List<Sample> samples, long retries) {
    MarkdownTable t = new MarkdownTable("s", "committed", "delivered", "on disk MiB", "made of");
    int step = Math.max(1, samples.size() / 10);
    for (int k = 0; k < samples.size(); k++) {
      if ((k + 1) % step != 0 && k != samples.size() - 1) {
        continue;
      }
      Sample s = samples.get(k);
      t.row(
          Long.toString(s.seconds()),
          String.format(Locale.ROOT, "%,d", s.committed()),
          String.format(Locale.ROOT, "%,d", s.delivered()),
          Stats.decimal(s.bytes() / MIB, 1),
          s.detail());
    }
    int half = samples.size() / 2;
    Sample last = samples.get(samples.size() - 1);
    double seconds = Math.max(1, last.seconds());
    return String.format(
        Locale.ROOT,
        "#### %s%n%n%s%nLargest on disk in the first half of the run %s MiB, in the second half"
            + " %s MiB; %s msg/s committed on average, %d producer transactions retried.%n%n",
        db.name(),
        t,
        Stats.decimal(largest(samples.subList(0, half)) / MIB, 1),
        Stats.decimal(largest(samples.subList(half, samples.size())) / MIB, 1),
        Stats.rate(last.committed() / seconds),
        retries);
  }

  private static double largest(List<Sample> samples) {
    return samples.stream().mapToLong(Sample::bytes).max().orElse(0);
  }

  private static void sleepUntil(long nanoTime) throws InterruptedException {
    for (long wait = nanoTime - System.nanoTime(); wait > 0; wait = nanoTime - System.nanoTime()) {
      Thread.sleep(Duration.ofNanos(wait));
    }
  }
}
