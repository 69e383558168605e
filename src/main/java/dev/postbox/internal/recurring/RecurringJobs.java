package dev.postbox.internal.recurring;

import dev.postbox.internal.Joins;
import dev.postbox.internal.dialect.Dialect;
import dev.postbox.internal.jdbc.Jdbc;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A dispatcher's recurring jobs: stores the declared schedules at start ({@link ScheduleStore}),
 * then, on one virtual thread, enqueues a run of each schedule whose next tick the database clock
 * has reached and stores its next tick, in one transaction that locks the schedule's row, so that
 * one dispatcher enqueues each tick once however many declare it. A run is an ordinary job of the
 * schedule's name. While a schedule's last run is unfinished (pending, running or retrying) its
 * next tick waits; when it ends, one run stands for all the ticks missed meanwhile. Thread-safe:
 * store, start and close once.
 */
public final class RecurringJobs {
  private static final Logger log = LoggerFactory.getLogger(RecurringJobs.class);
  private static final Duration MIN_WAIT = Duration.ofMillis(5);

  /** A schedule as declared on a dispatcher's builder. */
  public record Declared(ScheduleRule schedule, String name, String payload) {}

  /**
   * The job table runs go to, the attempts each run gets, and what to call after runs were enqueued
   * (wakes the dispatcher's job lane).
   */
  public record RunQueue(String table, int maxAttempts, Runnable enqueued) {}

  private final DataSource ds;
  private final RecurringSql sql;
  private final ScheduleStore store;
  private final Map<String, Declared> declared;
  private final List<String> names;
  private final RunQueue runs;
  private final Duration pollInterval;
  private final String instanceId;
  private final Thread thread;
  private volatile boolean stopped;

  public RecurringJobs(
      DataSource ds,
      Dialect dialect,
      Map<String, Declared> declared,
      RunQueue runs,
      Duration pollInterval,
      String instanceId) {
    this.ds = ds;
    this.sql = new RecurringSql(dialect, runs.table());
    this.store = new ScheduleStore(ds, sql, instanceId);
    this.declared = Map.copyOf(declared);
    this.names = List.copyOf(declared.keySet());
    this.runs = runs;
    this.pollInterval = pollInterval;
    this.instanceId = instanceId;
    this.thread = Thread.ofVirtual().name(instanceId + "-recurring").unstarted(this::run);
  }

  public String table() {
    return sql.table;
  }

  /**
   * Stores each declared schedule, or updates a stored one that differs; before {@link #start}, so
   * that a dispatcher whose schedule cannot be stored fails to start with nothing started.
   */
  public void storeDeclared() {
    for (Declared d : declared.values()) {
      store.declare(d);
    }
  }

  public void start() {
    thread.start();
  }

  /** Stops ticking and waits for a step under way; true if the caller was interrupted meanwhile. */
  public boolean close() {
    stopped = true;
    LockSupport.unpark(thread);
    return Joins.join(thread, Duration.ofDays(1));
  }

  private void run() {
    while (!stopped) {
      Duration wait;
      try {
        wait = step();
      } catch (SQLException | RuntimeException e) {
        log.warn(
            "{} - recurring jobs: a step failed; trying again in {}", instanceId, pollInterval, e);
        wait = pollInterval;
      }
      if (!stopped) {
        LockSupport.parkNanos(Math.max(wait.toNanos(), MIN_WAIT.toNanos()));
      }
    }
  }

  /** What one step did: the database's now it judged by, and how many runs it enqueued. */
  private record Step(Instant now, int fired) {}

  /** Enqueues the runs that are due; returns how long to wait for the next tick. */
  private Duration step() throws SQLException {
    Step step =
        sql.write(
            ds,
            c -> {
              Instant now = sql.now(c);
              int fired = 0;
              for (RecurringSql.Row row : due(c, now)) {
                fired += fire(c, row, now) ? 1 : 0;
              }
              return new Step(now, fired);
            });
    if (step.fired() > 0) {
      runs.enqueued().run();
    }
    return Jdbc.autoCommit(ds, c -> untilSoonest(c, step.now()));
  }

  /** The due schedule rows; for {@code every}, a tick equal to the last tick waits for the end. */
  private List<RecurringSql.Row> due(Connection c, Instant now) throws SQLException {
    List<RecurringSql.Row> rows = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(sql.due(names.size()))) {
      bindNames(ps, now);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          rows.add(sql.row(rs));
        }
      }
    }
    return rows;
  }

  /** Binds {@code t}, then the declared names. */
  private void bindNames(PreparedStatement ps, Instant t) throws SQLException {
    sql.dialect.bindInstant(ps, 1, t);
    for (int i = 0; i < names.size(); i++) {
      ps.setString(i + 2, names.get(i));
    }
  }

  /** Enqueues the run of a due schedule unless its last run is unfinished; true if it did. */
  private boolean fire(Connection c, RecurringSql.Row row, Instant now) throws SQLException {
    Declared d = declared.get(row.name());
    if (!d.schedule().stored().equals(row.schedule())) {
      return false; // stored by a dispatcher that declares it otherwise: that one runs it
    }
    Instant tick = row.tick();
    if (row.lastRun() != null) {
      RunEnd run = runEnd(c, row.lastRun());
      if (!run.ended()) {
        return false; // the tick waits for it
      }
      if (d.schedule().fromRunEnd()) {
        if (run.at() != null) { // the stored tick waited for the run's end, or was timed from it
          tick = d.schedule().nextTick(run.at());
        } else if (row.lastTick() == null || !row.tick().isAfter(row.lastTick())) {
          // the row is gone before a step saw the run end: it ended by now, so time from now
          tick = d.schedule().nextTick(now);
        } // else the stored tick was timed from the run's end before the row went: it stands
        if (tick.isAfter(now)) {
          sql.update(c, sql.moved, tick, row.name());
          return false;
        }
      }
    }
    long id = insertRun(c, row.name(), row.payload(), now, tick);
    Instant next = d.schedule().afterRun(tick, now);
    sql.update(c, sql.fired, next, tick, id, row.name());
    log.debug(
        "{} - recurring job '{}': job {} enqueued for the tick {}, next tick {}",
        instanceId,
        row.name(),
        id,
        tick,
        d.schedule().fromRunEnd() ? "timed from its end" : next);
    return true;
  }

  /**
   * How a schedule's last run stands: not ended (pending, running or retrying); ended at a time (a
   * finished row's {@code available_at} is its finish time: kept done, or parked); or ended at a
   * time unknown, its row gone (deleted when done or by the retention cleanup, cancelled or
   * discarded).
   */
  private record RunEnd(boolean ended, Instant at) {
    static final RunEnd UNFINISHED = new RunEnd(false, null);
    static final RunEnd GONE = new RunEnd(true, null);
  }

  private RunEnd runEnd(Connection c, long id) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql.lastRun)) {
      ps.setLong(1, id);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return RunEnd.GONE;
        }
        return rs.getInt("state") == 0
            ? RunEnd.UNFINISHED
            : new RunEnd(true, sql.dialect.readInstant(rs, "available_at"));
      }
    }
  }

  private long insertRun(Connection c, String name, String payload, Instant now, Instant tick)
      throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(sql.insertRun, Statement.RETURN_GENERATED_KEYS)) {
      ps.setString(1, name);
      ps.setString(2, payload);
      ps.setInt(3, runs.maxAttempts());
      sql.dialect.bindInstant(ps, 4, now);
      sql.dialect.bindInstant(ps, 5, now);
      sql.dialect.bindInstant(ps, 6, tick);
      ps.executeUpdate();
      try (ResultSet keys = ps.getGeneratedKeys()) {
        if (!keys.next()) {
          throw new SQLException("the database returned no id for the run's job");
        }
        return keys.getLong(1);
      }
    }
  }

  private Duration untilSoonest(Connection c, Instant after) throws SQLException {
    Instant soonest;
    try (PreparedStatement ps = c.prepareStatement(sql.soonest(names.size()))) {
      bindNames(ps, after);
      try (ResultSet rs = ps.executeQuery()) {
        soonest = rs.next() ? sql.dialect.readInstant(rs, "soonest") : null;
      }
    }
    if (soonest == null) {
      return pollInterval;
    }
    Duration wait = Duration.between(sql.now(c), soonest);
    return wait.compareTo(pollInterval) < 0 ? wait : pollInterval;
  }
}
