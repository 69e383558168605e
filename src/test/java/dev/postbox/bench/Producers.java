package dev.postbox.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntConsumer;

/**
 * Producer threads as an application runs them: each borrows one pooled connection in manual-commit
 * mode and commits {@code perProducer} transactions of one business row plus whatever {@link
 * Enqueuer} adds. A deadlock or busy error rolls the transaction back and repeats it (counted).
 */
final class Producers {
  private Producers() {}

  /** What one transaction adds besides the business row, on one connection. */
  interface Enqueue {
    void add(int index) throws SQLException;
  }

  /** Prepares an {@link Enqueue} for one producer's connection. */
  interface Enqueuer {
    Enqueue open(Connection c) throws SQLException;
  }

  static final Enqueuer NOTHING = c -> index -> {};

  /** Blocks until a producer's transaction may begin: an offered rate instead of a closed loop. */
  interface Pace {
    void await(int producer, int transaction) throws InterruptedException;
  }

  /** Each producer begins its next transaction as soon as the last one committed. */
  static final Pace FLAT_OUT = (producer, transaction) -> {};

  /**
   * A plain INSERT into the shipped outbox table, written as a user would: prepared once per
   * connection, the database clock for both times, no headers.
   */
  static Enqueuer handWritten(BenchDb db) {
    return handWritten(db, "");
  }

  /**
   * The hand-written INSERT made idempotent the way Postbox does it on PostgreSQL and SQLite:
   * {@code ON CONFLICT (event_id) DO NOTHING}. Tells the cost of that clause from the library's.
   */
  static Enqueuer handWrittenIdempotent(BenchDb db) {
    return perTransaction(handWrittenSql(db, " ON CONFLICT (event_id) DO NOTHING"));
  }

  /**
   * The hand-written INSERT as application code usually runs it: prepared, executed and closed in
   * each transaction (a pooled connection goes back to the pool in between), which is what {@code
   * outbox.add} does. {@link #handWritten} instead reuses one statement for the whole run.
   */
  static Enqueuer handWrittenPerTransaction(BenchDb db) {
    return perTransaction(handWrittenSql(db, ""));
  }

  private static Enqueuer perTransaction(String sql) {
    return c ->
        index -> {
          try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, Deliveries.eventId(index));
            ps.setString(2, "order.placed");
            ps.setString(3, "customer-" + index % 100);
            ps.setString(4, Deliveries.payload(index));
            ps.executeUpdate();
          }
        };
  }

  private static String handWrittenSql(BenchDb db, String suffix) {
    return "INSERT INTO postbox_outbox (event_id, topic, msg_key, payload, available_at, created_at)"
        + " VALUES (?, ?, ?, ?, "
        + db.now()
        + ", "
        + db.now()
        + ")"
        + suffix;
  }

  private static Enqueuer handWritten(BenchDb db, String suffix) {
    String sql = handWrittenSql(db, suffix);
    return c -> {
      PreparedStatement ps = c.prepareStatement(sql);
      return index -> {
        ps.setString(1, Deliveries.eventId(index));
        ps.setString(2, "order.placed");
        ps.setString(3, "customer-" + index % 100);
        ps.setString(4, Deliveries.payload(index));
        ps.executeUpdate();
      };
    };
  }

  /**
   * PostgreSQL: the same INSERT that also notifies {@code channel}, in one statement (NOTIFY is
   * delivered at commit; PostgreSQL folds a transaction's identical notifications into one).
   */
  static Enqueuer handWrittenNotifying(String channel) {
    String sql =
        "WITH added AS (INSERT INTO postbox_outbox"
            + " (event_id, topic, msg_key, payload, available_at, created_at)"
            + " VALUES (?, ?, ?, ?, now(), now()) RETURNING 1)"
            + " SELECT pg_notify('"
            + channel
            + "', '') FROM added";
    return c -> {
      PreparedStatement ps = c.prepareStatement(sql);
      return index -> {
        ps.setString(1, Deliveries.eventId(index));
        ps.setString(2, "order.placed");
        ps.setString(3, "customer-" + index % 100);
        ps.setString(4, Deliveries.payload(index));
        ps.executeQuery().close();
      };
    };
  }

  /**
   * Runs {@code producers} threads of {@code perProducer} transactions each; message indexes are
   * {@code producer * perProducer + i}. {@code afterCommit} runs on the producer after each commit.
   * Returns the elapsed nanoseconds from the start signal until the last commit.
   */
  static long run(
      BenchDb db,
      int producers,
      int perProducer,
      Enqueuer enqueuer,
      IntConsumer afterCommit,
      AtomicLong retries)
      throws InterruptedException {
    return run(db, producers, perProducer, enqueuer, afterCommit, retries, FLAT_OUT);
  }

  /** {@link #run(BenchDb, int, int, Enqueuer, IntConsumer, AtomicLong)}, each transaction paced. */
  static long run(
      BenchDb db,
      int producers,
      int perProducer,
      Enqueuer enqueuer,
      IntConsumer afterCommit,
      AtomicLong retries,
      Pace pace)
      throws InterruptedException {
    CountDownLatch ready = new CountDownLatch(producers);
    CountDownLatch go = new CountDownLatch(1);
    AtomicReference<Throwable> failure = new AtomicReference<>();
    List<Thread> threads = new ArrayList<>();
    for (int p = 0; p < producers; p++) {
      int producer = p;
      threads.add(
          Thread.ofPlatform()
              .name("bench-producer-" + p)
              .start(
                  () -> {
                    try {
                      produce(
                          db,
                          producer,
                          perProducer,
                          enqueuer,
                          afterCommit,
                          retries,
                          pace,
                          ready,
                          go);
                    } catch (Throwable e) {
                      failure.compareAndSet(null, e);
                      ready.countDown();
                    }
                  }));
    }
    ready.await();
    long start = System.nanoTime();
    go.countDown();
    for (Thread t : threads) {
      t.join();
    }
    long elapsed = System.nanoTime() - start;
    if (failure.get() != null) {
      throw new IllegalStateException("a producer failed", failure.get());
    }
    return elapsed;
  }

  private static void produce(
      BenchDb db,
      int producer,
      int perProducer,
      Enqueuer enqueuer,
      IntConsumer afterCommit,
      AtomicLong retries,
      Pace pace,
      CountDownLatch ready,
      CountDownLatch go)
      throws SQLException, InterruptedException {
    try (Connection c = db.dataSource().getConnection();
        PreparedStatement business =
            c.prepareStatement(
                "INSERT INTO " + BenchDb.BUSINESS + " (customer, amount) VALUES (?, ?)")) {
      c.setAutoCommit(false);
      Enqueue enqueue = enqueuer.open(c);
      ready.countDown();
      go.await();
      for (int i = 0; i < perProducer; i++) {
        int index = producer * perProducer + i;
        pace.await(producer, i);
        for (int attempt = 1; ; attempt++) {
          try {
            business.setString(1, "customer-" + index % 100);
            business.setLong(2, index);
            business.executeUpdate();
            enqueue.add(index);
            c.commit();
            break;
          } catch (SQLException e) {
            c.rollback();
            if (attempt >= 10 || !transientError(db, e)) {
              throw e;
            }
            retries.incrementAndGet();
          }
        }
        afterCommit.accept(index);
      }
    }
  }

  static boolean transientError(BenchDb db, SQLException e) {
    String state = String.valueOf(e.getSQLState());
    return switch (db.database()) {
      case POSTGRESQL -> state.equals("40001") || state.equals("40P01");
      case MYSQL -> e.getErrorCode() == 1213 || e.getErrorCode() == 1205;
      case H2 -> state.equals("40001") || state.equals("HYT00");
      case SQLITE -> (e.getErrorCode() & 0xff) == 5 || (e.getErrorCode() & 0xff) == 6;
    };
  }
}
