package dev.postbox.internal.recurring;

import dev.postbox.internal.dialect.Dialect;
import dev.postbox.internal.jdbc.Jdbc;
import dev.postbox.internal.jdbc.SqlFunction;
import dev.postbox.internal.jdbc.SqlText;
import dev.postbox.internal.sql.Home;
import dev.postbox.internal.sql.Sql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import javax.sql.DataSource;

/**
 * The statements of recurring jobs on the schedules table (the job table's name + {@code
 * _schedules}) and the job table, for one dialect, from the statement catalogue's {@code
 * recurring-*} files; and how they are bound. Rows are locked as other claims lock them: {@code FOR
 * UPDATE SKIP LOCKED}, except on SQLite, whose one writer {@link #write} takes with {@code BEGIN
 * IMMEDIATE}. Immutable.
 */
public final class RecurringSql {
  /** The schedules table's columns a dispatcher's start checks. */
  public static final String CHECKED_COLUMNS =
      "name, schedule, payload, next_tick, last_tick, last_run, updated_at";

  final Dialect dialect;
  final String table;

  /** SQLite's {@code BEGIN IMMEDIATE} for {@link #write}; null where a JDBC transaction will do. */
  final String begin;

  final String declared;
  final String insert;
  final String redeclare;
  final String repayload;
  final String lastRun;
  final String unfinishedRun;
  final String insertRun;
  final String fired;
  final String moved;
  final String list;
  final String remove;
  final String runNow;
  final String now;
  private final String due;
  private final String soonest;

  RecurringSql(Dialect d, String jobs) {
    this.dialect = d;
    this.table = jobs + "_schedules";
    this.begin = Home.text(Sql.RECURRING_BEGIN, d);
    this.declared = text(Sql.RECURRING_DECLARED, jobs);
    this.insert = text(Sql.RECURRING_INSERT, jobs);
    this.redeclare = text(Sql.RECURRING_REDECLARE, jobs);
    this.repayload = text(Sql.RECURRING_REPAYLOAD, jobs);
    this.lastRun = text(Sql.RECURRING_LAST_RUN, jobs);
    this.unfinishedRun = text(Sql.RECURRING_UNFINISHED_RUN, jobs);
    this.insertRun = text(Sql.RECURRING_INSERT_RUN, jobs);
    this.fired = text(Sql.RECURRING_FIRED, jobs);
    this.moved = text(Sql.RECURRING_MOVED, jobs);
    this.list = text(Sql.RECURRING_LIST, jobs);
    this.remove = text(Sql.RECURRING_REMOVE, jobs);
    this.runNow = text(Sql.RECURRING_RUN_NOW, jobs);
    this.now = Home.text(Sql.DB_NOW, d);
    this.due = text(Sql.RECURRING_DUE, jobs);
    this.soonest = text(Sql.RECURRING_SOONEST, jobs);
  }

  private String text(Sql sql, String jobs) {
    return Home.text(sql, dialect).replace("{schedules}", table).replace("{table}", jobs);
  }

  /** The due schedules of {@code names} names, locked ({@code recurring-due}). */
  String due(int names) {
    return due.replace("{names}", SqlText.marks(names));
  }

  /** The earliest tick of {@code names} names after a time ({@code recurring-soonest}). */
  String soonest(int names) {
    return soonest.replace("{names}", SqlText.marks(names));
  }

  /** A schedule row as {@link #due} and {@link #list} read it: its next tick, its last run's id. */
  record Row(
      String name, String schedule, String payload, Instant tick, Instant lastTick, Long lastRun) {}

  Row row(ResultSet rs) throws SQLException {
    long id = rs.getLong("last_run");
    Long lastRun = rs.wasNull() ? null : id;
    return new Row(
        rs.getString("name"),
        rs.getString("schedule"),
        rs.getString("payload"),
        dialect.readInstant(rs, "next_tick"),
        dialect.readInstant(rs, "last_tick"),
        lastRun);
  }

  /** The database's clock now. */
  Instant now(Connection c) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(now);
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      return dialect.readInstant(rs, "db_now");
    }
  }

  /** Runs {@code statement} with {@code params} bound in order, instants as the dialect binds. */
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
    return begin != null
        ? Jdbc.inTransactionBegunBy(ds, begin, work)
        : Jdbc.inTransaction(ds, work);
  }
}
