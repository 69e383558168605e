package dev.postbox;

import dev.postbox.internal.dialect.Dialect;
import dev.postbox.internal.jdbc.Jdbc;
import dev.postbox.internal.jdbc.SqlFunction;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Collections;
import javax.sql.DataSource;

/**
 * The statements of recurring jobs on the schedules table (the job table's name + {@code
 * _schedules}) and the job table, for one dialect. Rows are locked as other claims lock them:
 * {@code FOR UPDATE SKIP LOCKED}, except on SQLite, whose one writer {@link #write} takes with
 * {@code BEGIN IMMEDIATE}; and how they are bound. Immutable.
 */
final class RecurringSql {
  /** SQLite: begins a step's transaction holding the one write lock ({@link #write}). */
  static final String BEGIN_WRITE = "BEGIN IMMEDIATE";

  /** The schedules table's columns a dispatcher's start checks. */
  static final String CHECKED_COLUMNS =
      "name, schedule, payload, next_tick, last_tick, last_run, updated_at";

  final Dialect dialect;
  final String table;

  /** Params: the name. */
  final String declared;

  /** Params: name, schedule, payload, next tick. */
  final String insert;

  /** Params: schedule, payload, next tick, name. */
  final String redeclare;

  /** Params: payload, name. */
  final String repayload;

  /** Params: a job id. */
  final String lastRun;

  /** Params: the name. Runs of that name not finished, newest first. */
  final String unfinishedRun;

  /** Params: name, payload, max attempts, the step's now (due and created), tick. */
  final String insertRun;

  /** Params: next tick, last tick, last run, name. */
  final String fired;

  /** Params: next tick, name. */
  final String moved;

  /** No params. */
  final String list;

  /** Params: the name. */
  final String remove;

  /** No params. */
  final String now;

  RecurringSql(Dialect d, String jobs) {
    this.dialect = d;
    this.table = jobs + "_schedules";
    String now = d.now();
    String lock = d.oneWriter() ? "" : " FOR UPDATE";
    this.declared = "SELECT schedule, payload, last_tick FROM " + table + " WHERE name = ?" + lock;
    this.insert =
        "INSERT INTO "
            + table
            + " (name, schedule, payload, next_tick, updated_at) VALUES (?, ?, ?, ?, "
            + now
            + ")";
    this.redeclare =
        "UPDATE "
            + table
            + " SET schedule = ?, payload = ?, next_tick = ?, updated_at = "
            + now
            + " WHERE name = ?";
    this.repayload =
        "UPDATE " + table + " SET payload = ?, updated_at = " + now + " WHERE name = ?";
    this.lastRun = "SELECT state, available_at FROM " + jobs + " WHERE id = ?";
    this.unfinishedRun =
        "SELECT id, tick_at FROM "
            + jobs
            + " WHERE state = 0 AND name = ? AND tick_at IS NOT NULL ORDER BY id DESC";
    // created at the now the step read, so a run's creation and the next tick computed from that
    // now agree to the microsecond
    this.insertRun =
        "INSERT INTO "
            + jobs
            + " (name, payload, max_attempts, available_at, created_at, tick_at)"
            + " VALUES (?, ?, ?, ?, ?, ?)";
    this.fired =
        "UPDATE "
            + table
            + " SET next_tick = ?, last_tick = ?, last_run = ?, updated_at = "
            + now
            + " WHERE name = ?";
    this.moved = "UPDATE " + table + " SET next_tick = ?, updated_at = " + now + " WHERE name = ?";
    this.list =
        "SELECT s.name, s.schedule, s.payload, s.next_tick, s.last_tick, s.last_run,"
            + " j.state, j.attempts, j.leased_by FROM "
            + table
            + " s LEFT JOIN "
            + jobs
            + " j ON j.id = s.last_run ORDER BY s.name";
    this.remove = "DELETE FROM " + table + " WHERE name = ?";
    this.now = "SELECT " + now + " AS db_now";
  }

  /**
   * Params: the step's now, then the names. The declared schedules due at that now, each locked or
   * skipped if locked. The now is read once and bound (not the database's now in this statement),
   * so that a tick found due is never after the now its next tick is computed from.
   */
  String due(int names) {
    return "SELECT name, schedule, payload, next_tick, last_tick, last_run FROM "
        + table
        + " WHERE next_tick <= ? AND name IN ("
        + marks(names)
        + ")"
        + (dialect.oneWriter() ? "" : " FOR UPDATE SKIP LOCKED");
  }

  /** Params: a time, then the names. The earliest tick after that time. */
  String soonest(int names) {
    return "SELECT MIN(next_tick) AS soonest FROM "
        + table
        + " WHERE next_tick > ? AND name IN ("
        + marks(names)
        + ")";
  }

  private static String marks(int n) {
    return String.join(", ", Collections.nCopies(n, "?"));
  }

  /** The database's clock now. */
  Instant now(Connection c) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(now);
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      return dialect.readInstant(rs, "db_now");
    }
  }

  /**
   * Runs {@code statement} with {@code params} bound in order (instants as the dialect binds them).
   */
  void update(Connection c, String statement, Object... params) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(statement)) {
      for (int i = 0; i < params.length; i++) {
        if (params[i] instanceof Instant t) {
          dialect.bindInstant(ps, i + 1, t);
        } else {
          ps.setObject(i + 1, params[i]);
        }
      }
      ps.executeUpdate();
    }
  }

  /** Runs {@code work} in a transaction that holds SQLite's one write lock from its start. */
  <T> T write(DataSource ds, SqlFunction<Connection, T> work) throws SQLException {
    return dialect.oneWriter()
        ? Jdbc.inTransactionBegunBy(ds, BEGIN_WRITE, work)
        : Jdbc.inTransaction(ds, work);
  }
}
