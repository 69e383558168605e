package dev.postbox;

import dev.postbox.RecurringJobs.Declared;
import dev.postbox.internal.jdbc.Jdbc;
import dev.postbox.internal.jdbc.Retry;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stores the schedules a dispatcher declares, when it starts: inserts a new one, updates one stored
 * with another schedule or payload. Stateless apart from its settings; thread-safe.
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
    String schedule = d.schedule().toString();
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

  private void insert(Connection c, Declared d, Instant now) throws SQLException {
    Instant first = d.schedule().first(now);
    sql.update(c, sql.insert, d.name(), d.schedule().toString(), d.payload(), first);
    log.info(
        "{} - recurring job '{}': {} stored, first run due {}",
        instanceId,
        d.name(),
        d.schedule(),
        first);
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
}
