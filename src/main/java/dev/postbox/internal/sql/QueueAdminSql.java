package dev.postbox.internal.sql;

import dev.postbox.BlockedKey;
import dev.postbox.Failing;
import dev.postbox.Parked;
import dev.postbox.QueueStats;
import dev.postbox.internal.jdbc.SqlFunction;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Binds and runs the statements of the catalogue that read a queue table's stats and failing rows
 * and work on its parked rows, on the caller's connection: never claims, never commits.
 * Thread-safe.
 */
public final class QueueAdminSql {
  private final QueueSql sql;

  public QueueAdminSql(QueueSql sql) {
    this.sql = sql;
  }

  public long countPending(Connection c) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql.text(Sql.COUNT_PENDING));
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      return rs.getLong(1);
    }
  }

  public QueueStats stats(Connection c) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql.text(Sql.STATS));
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      Instant oldest = sql.dialect.readInstant(rs, "oldest");
      Instant dbNow = sql.dialect.readInstant(rs, "db_now");
      Duration age = oldest == null ? Duration.ZERO : Duration.between(oldest, dbNow);
      long blocked = rs.getLong("blocked"); // ready, but behind a parked row of their key
      return new QueueStats(
          rs.getLong("pending"),
          rs.getLong("ready") - blocked,
          rs.getLong("leased"),
          rs.getLong("parked"),
          age.isNegative() ? Duration.ZERO : age,
          rs.getLong("blocked_keys"),
          blocked);
    }
  }

  public List<Parked> parked(Connection c, int limit) throws SQLException {
    return list(c, Sql.PARKED, limit, this::parked);
  }

  /** Failing rows, soonest next attempt first. */
  public List<Failing> failing(Connection c, int limit) throws SQLException {
    return list(
        c,
        Sql.FAILING,
        limit,
        rs ->
            new Failing(
                rs.getLong("id"),
                rs.getString("ref"),
                rs.getString("topic"),
                rs.getString("listed_key"),
                rs.getInt("attempts"),
                rs.getString("last_error"),
                sql.dialect.readInstant(rs, "available_at"),
                rs.getInt("leased") == 1,
                sql.dialect.readInstant(rs, "created_at")));
  }

  /** Keys blocked by a parked row, oldest first; empty unless parked rows block their keys. */
  public List<BlockedKey> blockedKeys(Connection c, int limit) throws SQLException {
    if (sql.text(Sql.BLOCKED_KEYS) == null) {
      return List.of();
    }
    return list(
        c,
        Sql.BLOCKED_KEYS,
        limit,
        rs -> new BlockedKey(rs.getString("blocked_key"), parked(rs), rs.getLong("waiting")));
  }

  private Parked parked(ResultSet rs) throws SQLException {
    return new Parked(
        rs.getLong("id"),
        rs.getString("ref"),
        rs.getString("topic"),
        rs.getInt("attempts"),
        rs.getString("last_error"),
        sql.dialect.readInstant(rs, "created_at"));
  }

  /**
   * The rows of {@code statement}, whose one parameter is {@code limit}, each read by {@code row}.
   */
  private <T> List<T> list(Connection c, Sql statement, int limit, SqlFunction<ResultSet, T> row)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql.text(statement))) {
      ps.setInt(1, limit);
      try (ResultSet rs = ps.executeQuery()) {
        List<T> rows = new ArrayList<>();
        while (rs.next()) {
          rows.add(row.apply(rs));
        }
        return rows;
      }
    }
  }

  /** Makes the parked row with this ref due again (all parked rows if {@code ref} is null). */
  public int replay(Connection c, Object ref) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(ref == null ? sql.text(Sql.REPLAY_ALL) : sql.text(Sql.REPLAY))) {
      if (ref != null) {
        ps.setObject(1, ref);
      }
      return ps.executeUpdate();
    }
  }

  /** Deletes the parked row with this ref. */
  public int discard(Connection c, Object ref) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql.text(Sql.DISCARD))) {
      ps.setObject(1, ref);
      return ps.executeUpdate();
    }
  }
}
