package dev.postbox.testing;

import dev.postbox.internal.dialect.Dialects;
import dev.postbox.internal.sql.Home;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;
import javax.sql.DataSource;

/**
 * The recurring-job engine's clock, stopped and moved by the test: a {@link DataSource} whose
 * answer to the engine's {@code db-now} statement is an instant the test sets, every other
 * statement run as the database runs it. The clock starts an hour behind the database's, half-way
 * through a second (so a tick, on a whole second, is never "now"), and moves only when the test
 * {@link #advance advances} it: each whole second it passes is one cron tick. A run's row, due at
 * the engine's now, is thus already due by the database clock the job lane claims by; a clock ahead
 * of the database's would leave the runs waiting for it. Only the engine reads {@code db-now}: what
 * the job lane stamps (a run's end, from which {@code every} times its next run) stays on the
 * database clock. Thread-safe.
 */
public final class RecurringClock {
  /** An engine thread prepared db-now this often since an advance: a step after it committed. */
  private static final int STEP = 3;

  private static final DateTimeFormatter LITERAL =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSSSSS").withZone(ZoneOffset.UTC);

  private final DataSource target;
  private final TestDatabase db;
  private final String dbNow;
  private final ReentrantLock lock = new ReentrantLock();
  private Instant now; // guarded by lock
  private final Map<String, Integer> servedSinceAdvance = new HashMap<>(); // guarded by lock

  public RecurringClock(DataSource target, TestDatabase db) {
    this.target = target;
    this.db = db;
    this.dbNow = Home.text(dev.postbox.internal.sql.Sql.DB_NOW, Dialects.of(db.database()));
    this.now =
        Sql.dbNow(target, db)
            .minus(Duration.ofHours(1))
            .truncatedTo(ChronoUnit.SECONDS)
            .plusMillis(500);
  }

  /** The database the clock was made for, with its db-now statement answered by this clock. */
  public DataSource dataSource() {
    return dataSource(target);
  }

  /** {@code other} (a pool of the same database) with its db-now answered by this clock. */
  public DataSource dataSource(DataSource other) {
    return JdbcProxy.wrappingConnections(other, this::stopped);
  }

  /** The engine's now. */
  public Instant now() {
    lock.lock();
    try {
      return now;
    } finally {
      lock.unlock();
    }
  }

  /** Moves the engine's clock forward by {@code d}; it never passes the database's. */
  public void advance(Duration d) {
    lock.lock();
    try {
      Instant next = now.plus(d);
      if (next.isAfter(Sql.dbNow(target, db))) {
        throw new IllegalArgumentException("the engine's clock would pass the database's");
      }
      now = next;
      servedSinceAdvance.clear();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Waits until the engine of dispatcher {@code instanceId} finished a step that judged by the
   * clock's current time: its thread prepared db-now three times since the last {@link #advance} (a
   * step's start and its end, after its commit, and the end of a step under way at the advance).
   */
  public void awaitStep(String instanceId) {
    String thread = instanceId + "-recurring";
    Await.until(
        Duration.ofSeconds(60),
        "a step of " + thread + " at the engine's current time",
        () -> {
          lock.lock();
          try {
            return servedSinceAdvance.getOrDefault(thread, 0) >= STEP;
          } finally {
            lock.unlock();
          }
        });
  }

  private Connection stopped(Connection real) {
    return JdbcProxy.of(
        Connection.class,
        (proxy, method, args) -> {
          if (method.getName().equals("prepareStatement")
              && args.length == 1
              && dbNow.equals(args[0])) {
            return JdbcProxy.invoke(real, method, new Object[] {stoppedNow()});
          }
          return JdbcProxy.invoke(real, method, args);
        });
  }

  /** The db-now statement answering the clock's now, as the database's own clock types it. */
  private String stoppedNow() {
    lock.lock();
    try {
      servedSinceAdvance.merge(Thread.currentThread().getName(), 1, Integer::sum);
      String utc = LITERAL.format(now);
      String literal =
          switch (db.database()) {
            case SQLITE -> Long.toString(now.toEpochMilli());
            case POSTGRESQL -> "CAST('" + utc + "+00' AS TIMESTAMPTZ)";
            case H2 -> "CAST('" + utc + "+00:00' AS TIMESTAMP(6) WITH TIME ZONE)";
            case MYSQL -> "CAST('" + utc + "' AS DATETIME(6))";
          };
      return "SELECT " + literal + " AS db_now";
    } finally {
      lock.unlock();
    }
  }
}
