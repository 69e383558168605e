package dev.postbox.internal;

import dev.postbox.BlockedKey;
import dev.postbox.Database;
import dev.postbox.Failing;
import dev.postbox.Parked;
import dev.postbox.QueueStats;
import dev.postbox.internal.jdbc.Jdbc;
import dev.postbox.internal.jdbc.SqlFunction;
import dev.postbox.internal.sql.QueueAdminSql;
import dev.postbox.internal.sql.QueueSql;
import dev.postbox.internal.sql.QueueTable;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * Stats, failing rows and parked-row operations on one table, behind the outbox's and the job
 * queue's methods of those names: on the caller's connection, never claims, never commits; a
 * database error becomes a {@link dev.postbox.PostboxException} naming what was being done.
 * Immutable and thread-safe.
 */
public final class QueueAdmin {
  private final String table;
  private final String rows;
  private final DialectChoice dialects;
  private final Map<Database, QueueAdminSql> sql = new EnumMap<>(Database.class);

  /**
   * @param rows what the table's rows are called in error messages: "messages", "jobs"
   */
  public QueueAdmin(QueueTable<?> t, String rows, DialectChoice dialects) {
    this.table = t.name();
    this.rows = rows;
    this.dialects = dialects;
    for (Database db : Database.values()) {
      sql.put(db, new QueueAdminSql(QueueSql.of(dialects.dialect(db), t, 1)));
    }
  }

  /** Runs {@code call} with the statements of the connection's database. */
  private <T> T call(Connection c, String doing, SqlFunction<QueueAdminSql, T> call) {
    try {
      Require.notNull("connection", c);
      return call.apply(sql.get(dialects.of(c).database()));
    } catch (SQLException e) {
      throw Jdbc.wrap(doing, e);
    }
  }

  public long countPending(Connection c) {
    return call(c, "counting pending " + rows + " in " + table, s -> s.countPending(c));
  }

  public QueueStats stats(Connection c) {
    return call(c, "reading stats of " + table, s -> s.stats(c));
  }

  public List<Parked> parked(Connection c, int limit) {
    Require.between("limit", limit, 1, 100_000);
    return call(c, "listing parked " + rows + " in " + table, s -> s.parked(c, limit));
  }

  public List<Failing> failing(Connection c, int limit) {
    Require.between("limit", limit, 1, 100_000);
    return call(c, "listing failing " + rows + " in " + table, s -> s.failing(c, limit));
  }

  public List<BlockedKey> blockedKeys(Connection c, int limit) {
    Require.between("limit", limit, 1, 100_000);
    return call(c, "listing blocked keys in " + table, s -> s.blockedKeys(c, limit));
  }

  /** Makes the parked row with this reference due again; false if there is none. */
  public boolean replay(Connection c, Object ref, String what) {
    return call(c, "replaying " + what + " in " + table, s -> s.replay(c, ref)) > 0;
  }

  public int replayAll(Connection c) {
    return call(c, "replaying parked " + rows + " in " + table, s -> s.replay(c, null));
  }

  /** Deletes the parked row with this reference; false if there is none. */
  public boolean discard(Connection c, Object ref, String what) {
    return call(c, "discarding " + what + " from " + table, s -> s.discard(c, ref)) > 0;
  }
}
