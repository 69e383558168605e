package dev.postbox.internal.recurring;

import dev.postbox.internal.jdbc.Jdbc;
import dev.postbox.internal.jdbc.Retry;
import dev.postbox.internal.recurring.RecurringJobs.Declared;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stores the schedules a dispatcher declares, when it starts: inserts a new one (adopting a run of
 * its name still unfinished), updates one stored with another schedule or payload. Stateless apart
 * from its settings; thread-safe.
 */
final class ScheduleStore {
  private static final Logger log = LoggerFactory.getLogger(ScheduleStore.class);

  private final DataSource ds;
  private final RecurringSql sql;
  private final String instanceId;

  ScheduleStore(DataSource ds, RecurringSql sql, String instanceId) {
    this.ds = ds;
    this.sql = sql;
    this.instanceId = instanceId;
  }

  /** Stores {@code d}, or updates the stored row where it differs, in a transaction of its own. */
  void declare(Declared d) {
    try {
      // dispatchers storing a new schedule at once: one insert collides, or (MariaDB) the locking
      // reads of the missing row took gap locks and the inserts deadlock; read it again
      Retry.transients(
          e -> sql.dialect.isDuplicateKey(e) || sql.dialect.isTransient(e),
          () -> sql.write(ds, c -> store(c, d)),
          e ->
              log.debug(
                  "{} - recurring job '{}': storing collided with another dispatcher; again",
                  instanceId,
                  d.name(),
                  e));
    } catch (SQLException e) {
      throw Jdbc.wrap("storing the schedule of recurring job '" + d.name() + "'", e);
    }
  }

  /** Inserts {@code d}, or updates the stored row where it differs; in the caller's transaction. */
  private Void store(Connection c, Declared d) throws SQLException {
    String schedule = d.schedule().stored();
    Instant now = sql.now(c);
    Stored stored = stored(c, d.name());
    if (stored == null) {
      insert(c, d, now);
    } else if (!stored.schedule().equals(schedule)) {
      // every times its next run from the end of the last: the new one waits for that end too
      boolean fromEnd = d.schedule().fromRunEnd() && stored.lastTick() != null;
      Instant next = fromEnd ? stored.lastTick() : d.schedule().first(now);
      sql.update(c, sql.redeclare, schedule, d.payload(), next, d.name());
      log.info(
          "{} - recurring job '{}': schedule changed from {} to {}, next run due {}",
          instanceId,
          d.name(),
          stored.schedule(),
          schedule,
          fromEnd ? "after the last run's end" : next);
    } else if (!stored.payload().equals(d.payload())) {
      sql.update(c, sql.repayload, d.payload(), d.name());
      log.info("{} - recurring job '{}': payload changed", instanceId, d.name());
    }
    return null;
  }

  /**
   * Inserts a new schedule row. A run of its name still unfinished, left by a row removed while the
   * run went on, becomes its last run, so that the first tick waits for it: runs of one name never
   * overlap. Finding it scans the job table's unfinished rows (there is no index on the name), once
   * per schedule stored anew, at a dispatcher's start.
   */
  private void insert(Connection c, Declared d, Instant now) throws SQLException {
    Instant first = d.schedule().first(now);
    sql.update(c, sql.insert, d.name(), d.schedule().stored(), d.payload(), first);
    Run left = unfinishedRun(c, d.name());
    if (left == null) {
      log.info(
          "{} - recurring job '{}': {} stored, first run due {}",
          instanceId,
          d.name(),
          d.schedule().stored(),
          first);
      return;
    }
    Instant next = d.schedule().afterRun(left.tick(), now);
    sql.update(c, sql.fired, next, left.tick(), left.id(), d.name());
    log.info(
        "{} - recurring job '{}': {} stored; its first run waits for job {} (the run for the tick"
            + " {}) to end",
        instanceId,
        d.name(),
        d.schedule().stored(),
        left.id(),
        left.tick());
  }

  /** A stored schedule row's declaration and last tick. */
  private record Stored(String schedule, String payload, Instant lastTick) {}

  private Stored stored(Connection c, String name) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql.declared)) {
      ps.setString(1, name);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next()
            ? new Stored(
                rs.getString("schedule"),
                rs.getString("payload"),
                sql.dialect.readInstant(rs, "last_tick"))
            : null;
      }
    }
  }

  /** A run enqueued for a schedule: its job id and tick. */
  private record Run(long id, Instant tick) {}

  /** The newest run of {@code name} not finished (pending, running or retrying), or null. */
  private Run unfinishedRun(Connection c, String name) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql.unfinishedRun)) {
      ps.setMaxRows(1);
      ps.setString(1, name);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? new Run(rs.getLong("id"), sql.dialect.readInstant(rs, "tick_at")) : null;
      }
    }
  }
}
