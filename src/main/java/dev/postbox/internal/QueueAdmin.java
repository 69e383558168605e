package dev.postbox.internal;

import dev.postbox.Parked;
import dev.postbox.QueueStats;
import dev.postbox.internal.dialect.Dialect;
import dev.postbox.internal.jdbc.Jdbc;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Stats and parked-row operations on one table, run on the caller's connection: never claims, never
 * commits. Shared by the outbox and the job queue; a database error becomes a {@link
 * dev.postbox.PostboxException} naming what was being done.
 */
public final class QueueAdmin {
  private final String table;
  private final String refColumn;
  private final String topicColumn;
  private final String rows;
  private final DialectChoice dialects;

  /**
   * @param rows what the table's rows are called in error messages: "messages", "jobs"
   */
  public QueueAdmin(QueueTable<?> t, String rows, DialectChoice dialects) {
    this.table = t.name();
    this.refColumn = t.refColumn();
    this.topicColumn = t.topicColumn();
    this.rows = rows;
    this.dialects = dialects;
  }

  private interface Call<T> {
    T run(Dialect d) throws SQLException;
  }

  /** Runs {@code call} with the connection's dialect, or null if {@code needsDialect} is false. */
  private <T> T call(Connection c, String doing, boolean needsDialect, Call<T> call) {
    try {
      Require.notNull("connection", c);
      return call.run(needsDialect ? dialects.of(c) : null);
    } catch (SQLException e) {
      throw Jdbc.wrap(doing, e);
    }
  }

  /** Counts rows not yet finished (not parked). */
  public long countPending(Connection c) {
    return call(c, "counting pending " + rows + " in " + table, false, d -> countPendingRows(c));
  }

  /** Pending, due, leased and parked counts and the oldest pending age. */
  public QueueStats stats(Connection c) {
    return call(c, "reading stats of " + table, true, d -> stats(c, d));
  }

  /** Up to {@code limit} parked rows, oldest first. */
  public List<Parked> parked(Connection c, int limit) {
    Require.between("limit", limit, 1, 100_000);
    return call(c, "listing parked " + rows + " in " + table, true, d -> parked(c, d, limit));
  }

  /** Makes the parked row with {@code column = value} due again; false if there is none. */
  public boolean replay(Connection c, String column, Object value, String what) {
    return call(c, "replaying " + what + " in " + table, true, d -> replay(c, d, column, value))
        > 0;
  }

  /** Makes every parked row due again; returns how many. */
  public int replayAll(Connection c) {
    return call(
        c, "replaying parked " + rows + " in " + table, true, d -> replay(c, d, null, null));
  }

  /** Deletes the parked row with {@code column = value}; false if there is none. */
  public boolean discard(Connection c, String column, Object value, String what) {
    return call(c, "discarding " + what + " from " + table, false, d -> discard(c, column, value))
        > 0;
  }

  private long countPendingRows(Connection c) throws SQLException {
    try (PreparedStatement ps =
            c.prepareStatement("SELECT COUNT(*) FROM " + table + " WHERE state = 0");
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private QueueStats stats(Connection c, Dialect d) throws SQLException {
    String now = d.now();
    String sql =
        "SELECT"
            + " (SELECT COUNT(*) FROM "
            + table
            + " WHERE state = 0) AS pending,"
            + " (SELECT COUNT(*) FROM "
            + table
            + " WHERE state = 0 AND available_at <= "
            + now
            + ") AS due,"
            + " (SELECT COUNT(*) FROM "
            + table
            + " WHERE state = 0 AND available_at > "
            + now
            + " AND leased_by IS NOT NULL) AS leased,"
            + " (SELECT COUNT(*) FROM "
            + table
            + " WHERE state = 2) AS parked,"
            + " (SELECT MIN(created_at) FROM "
            + table
            + " WHERE state = 0) AS oldest,"
            + " "
            + now
            + " AS db_now";
    try (PreparedStatement ps = c.prepareStatement(sql);
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      Instant oldest = d.readInstant(rs, "oldest");
      Instant dbNow = d.readInstant(rs, "db_now");
      Duration age = oldest == null ? Duration.ZERO : Duration.between(oldest, dbNow);
      return new QueueStats(
          rs.getLong("pending"),
          rs.getLong("due"),
          rs.getLong("leased"),
          rs.getLong("parked"),
          age.isNegative() ? Duration.ZERO : age);
    }
  }

  private List<Parked> parked(Connection c, Dialect d, int limit) throws SQLException {
    String sql =
        "SELECT id, "
            + refColumn
            + " AS ref, "
            + topicColumn
            + " AS topic, attempts, last_error, created_at FROM "
            + table
            + " WHERE state = 2 ORDER BY id LIMIT ?";
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setInt(1, limit);
      try (ResultSet rs = ps.executeQuery()) {
        List<Parked> parked = new ArrayList<>();
        while (rs.next()) {
          parked.add(
              new Parked(
                  rs.getLong("id"),
                  rs.getString("ref"),
                  rs.getString("topic"),
                  rs.getInt("attempts"),
                  rs.getString("last_error"),
                  d.readInstant(rs, "created_at")));
        }
        return parked;
      }
    }
  }

  /**
   * Makes parked rows matching {@code column = value} (all parked rows if column is null) due
   * again.
   */
  private int replay(Connection c, Dialect d, String column, Object value) throws SQLException {
    String sql =
        "UPDATE "
            + table
            + " SET state = 0, attempts = 0, available_at = "
            + d.now()
            + ", leased_by = NULL WHERE state = 2"
            + (column == null ? "" : " AND " + column + " = ?");
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      if (column != null) {
        ps.setObject(1, value);
      }
      return ps.executeUpdate();
    }
  }

  /** Deletes parked rows matching {@code column = value}. */
  private int discard(Connection c, String column, Object value) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement("DELETE FROM " + table + " WHERE state = 2 AND " + column + " = ?")) {
      ps.setObject(1, value);
      return ps.executeUpdate();
    }
  }
}
