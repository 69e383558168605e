package dev.postbox.internal;

import dev.postbox.Parked;
import dev.postbox.QueueStats;
import dev.postbox.internal.dialect.Dialect;
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
 * commits. Shared by the outbox and the job queue.
 */
public final class QueueAdmin {
  private final String table;
  private final String refColumn;
  private final String topicColumn;

  public QueueAdmin(QueueTable<?> t) {
    this.table = t.name();
    this.refColumn = t.refColumn();
    this.topicColumn = t.topicColumn();
  }

  public long countPending(Connection c) throws SQLException {
    try (PreparedStatement ps =
            c.prepareStatement("SELECT COUNT(*) FROM " + table + " WHERE state = 0");
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      return rs.getLong(1);
    }
  }

  public QueueStats stats(Connection c, Dialect d) throws SQLException {
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

  public List<Parked> parked(Connection c, Dialect d, int limit) throws SQLException {
    Require.between("limit", limit, 1, 100_000);
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
  public int replay(Connection c, Dialect d, String column, Object value) throws SQLException {
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
  public int discard(Connection c, String column, Object value) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement("DELETE FROM " + table + " WHERE state = 2 AND " + column + " = ?")) {
      ps.setObject(1, value);
      return ps.executeUpdate();
    }
  }
}
