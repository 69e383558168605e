package dev.postbox;

import dev.postbox.internal.Periodic;
import dev.postbox.internal.dialect.Dialect;
import dev.postbox.internal.jdbc.Jdbc;
import dev.postbox.internal.sql.Home;
import dev.postbox.internal.sql.Sql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A dispatcher's entry in {@code <outbox>_dispatchers}: how it orders the outbox, so that a
 * dispatcher that would order it otherwise than one already running refuses to start (per-key order
 * holds only if every dispatcher of a table keeps it, and a parked message blocks its key only if
 * every one of them says so). Registered at start, refreshed every third of a lease while the
 * dispatcher runs, removed when it stops; the entry of a dispatcher not seen for a lease (one that
 * crashed) no longer counts, and is deleted by the next start. Of two dispatchers that disagree and
 * start at once, the later one (by the database clock, then by instance id) refuses. Each method
 * runs on a connection of its own, in auto-commit; not thread-safe (the dispatcher's start and
 * close, and the refresh thread, use it one after another).
 */
final class OrderingRegistration {
  private static final Logger log = LoggerFactory.getLogger(OrderingRegistration.class);

  /** The registration table's columns a dispatcher's start checks. */
  static final String COLUMNS = "instance_id, settings, started_at, seen_at";

  private final DataSource dataSource;
  private final Dialect dialect;
  private final String outboxTable;
  private final String table;
  private final String instanceId;
  private final String settings;
  private final Duration lease;
  private final Periodic refresh;

  OrderingRegistration(
      DataSource dataSource, Dialect dialect, Outbox outbox, String instanceId, Duration lease) {
    this.dataSource = dataSource;
    this.dialect = dialect;
    this.outboxTable = outbox.table();
    this.table = table(outbox.table());
    this.instanceId = instanceId;
    this.settings = settings(outbox);
    this.lease = lease;
    this.refresh =
        new Periodic(
            instanceId + "-" + outbox.table() + "-registration",
            List.of(new Periodic.Task(lease.dividedBy(3), this::seen)));
  }

  /** The registration table of the outbox {@code outbox}. */
  static String table(String outbox) {
    return outbox + "_dispatchers";
  }

  /** How {@code outbox} is ordered, as registered and named in the refusal. */
  static String settings(Outbox outbox) {
    return outbox.orderedByKey()
        ? "orderedByKey=true onParked=" + outbox.onParked()
        : "orderedByKey=false";
  }

  /**
   * Registers this dispatcher, or refuses if a dispatcher that started earlier and still runs
   * orders the table otherwise; then keeps the entry fresh until {@link #close}.
   *
   * @throws PostboxException naming both dispatchers and their settings, if they disagree
   */
  void register() {
    Conflict conflict;
    try {
      conflict = Jdbc.autoCommit(dataSource, this::insertAndCheck);
      if (conflict != null) {
        Jdbc.autoCommit(dataSource, this::delete);
      }
    } catch (SQLException e) {
      throw Jdbc.wrap(instanceId + " - registering on " + table, e);
    }
    if (conflict != null) {
      throw new PostboxException(
          instanceId
              + " - cannot deliver "
              + outboxTable
              + " with "
              + settings
              + ": dispatcher "
              + conflict.instanceId()
              + " (running since "
              + conflict.startedAt()
              + ") delivers it with "
              + conflict.settings()
              + ", and per-key order holds only if every dispatcher of a table orders it the same"
              + " way. To change the setting, stop every dispatcher of the table first (one that"
              + " crashed counts as stopped a lease after it was last seen); see"
              + " docs/ordering.md#changing-the-ordering-of-a-table");
    }
    refresh.start();
  }

  /** Stops refreshing and removes this dispatcher's entry; true if interrupted meanwhile. */
  boolean close() {
    boolean interrupted = refresh.close();
    try {
      Jdbc.autoCommit(dataSource, this::delete);
    } catch (SQLException e) {
      log.warn(
          "{} - could not remove its entry from {}; it is ignored a lease from now",
          instanceId,
          table,
          e);
    }
    return interrupted;
  }

  /** The catalogue's registration {@code statement} on {@code table} (its params named there). */
  static String sql(Sql statement, Dialect d, String table) {
    return Home.text(statement, d).replace("{table}", table);
  }

  private record Conflict(String instanceId, String settings, Instant startedAt) {}

  /** Forgets dead entries and this instance's old one, inserts its own, and finds a conflict. */
  private Conflict insertAndCheck(Connection c) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql(Sql.REGISTRATION_FORGET, dialect, table))) {
      ps.setString(1, instanceId);
      ps.setLong(2, -2 * lease.toMillis());
      ps.executeUpdate();
    }
    insert(c);
    Instant mine = null;
    Conflict earliest = null;
    try (PreparedStatement ps = c.prepareStatement(sql(Sql.REGISTRATION_LIVE, dialect, table))) {
      ps.setLong(1, -lease.toMillis());
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          Conflict entry =
              new Conflict(
                  rs.getString("instance_id"),
                  rs.getString("settings"),
                  dialect.readInstant(rs, "started_at"));
          if (entry.instanceId().equals(instanceId)) {
            mine = entry.startedAt();
          } else if (!entry.settings().equals(settings)
              && (earliest == null || before(entry, earliest))) {
            earliest = entry;
          }
        }
      }
    }
    if (earliest == null || mine == null) {
      return null;
    }
    // the later of two that disagree refuses; the earlier one may not have seen it yet
    return before(earliest, new Conflict(instanceId, settings, mine)) ? earliest : null;
  }

  private static boolean before(Conflict a, Conflict b) {
    int byTime = a.startedAt().compareTo(b.startedAt());
    return byTime != 0 ? byTime < 0 : a.instanceId().compareTo(b.instanceId()) < 0;
  }

  private void insert(Connection c) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql(Sql.REGISTRATION_INSERT, dialect, table))) {
      ps.setString(1, instanceId);
      ps.setString(2, settings);
      ps.executeUpdate();
    }
  }

  /** Refreshes this dispatcher's entry; inserts it again if a start took it for dead. */
  private void seen() {
    try {
      Jdbc.autoCommit(
          dataSource,
          c -> {
            try (PreparedStatement ps =
                c.prepareStatement(sql(Sql.REGISTRATION_SEEN, dialect, table))) {
              ps.setString(1, instanceId);
              if (ps.executeUpdate() == 0) {
                log.warn(
                    "{} - its entry in {} was gone (not refreshed for two leases); registered again",
                    instanceId,
                    table);
                insert(c);
              }
            }
            return null;
          });
    } catch (SQLException e) {
      log.warn("{} - refreshing its entry in {} failed: {}", instanceId, table, e.toString());
    }
  }

  private Void delete(Connection c) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql(Sql.REGISTRATION_DELETE, dialect, table))) {
      ps.setString(1, instanceId);
      ps.executeUpdate();
    }
    return null;
  }
}
