package dev.postbox.internal;

import dev.postbox.internal.dialect.Dialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * Claims due rows in one short transaction: one UPDATE … RETURNING where the database has it, else
 * a locking SELECT that skips held rows plus an UPDATE by primary key. Each claimed row gets {@code
 * leased_by}, {@code attempts + 1} and {@code available_at = now + lease}, all by the database
 * clock. Deadlocks and busy errors are retried.
 */
final class Claimer<T> {
  private final DataSource dataSource;
  private final QueueSql sql;
  private final QueueTable<T> table;
  private final LaneSettings settings;
  private final List<String> begin;
  private final WriteGate gate;
  private final Statements statements;

  Claimer(
      DataSource dataSource,
      QueueSql sql,
      QueueTable<T> table,
      LaneSettings settings,
      WriteGate gate) {
    this.gate = gate;
    this.dataSource = dataSource;
    this.sql = sql;
    this.table = table;
    this.settings = settings;
    this.begin = sql.dialect.beginClaim();
    this.statements = new Statements(sql.dialect.singleWriter());
  }

  /**
   * Claims up to the batch size of due rows, oldest due first; or, for an outage probe ({@code
   * probe} not null), the newest rows first except those in {@code probe} (already probed), so a
   * probe tries a message that arrived after a burst of poison rather than the poison itself, and
   * never the same failing message over and over, up to {@code limit} rows.
   */
  List<Claimed<T>> claim(int limit, List<Long> probe) throws SQLException {
    List<Claimed<T>> rows = new ArrayList<>(limit);
    Retry.transients(
        sql.dialect,
        () -> {
          rows.clear();
          return gate.through(
              () -> {
                try (Connection c = dataSource.getConnection()) {
                  inTransaction(c, () -> claimOnce(c, limit, probe, rows));
                }
                return null;
              });
        },
        e -> Listeners.call(() -> settings.listener().retried(table.name(), "claim", e)));
    return rows;
  }

  private interface Work {
    void run() throws SQLException;
  }

  private void inTransaction(Connection c, Work work) throws SQLException {
    Dialect dialect = sql.dialect;
    if (!c.getAutoCommit()) {
      c.setAutoCommit(true); // a pool may hand out connections either way; start from a known state
    }
    boolean explicit = !begin.isEmpty();
    boolean jdbc = !explicit && !dialect.claimsWithUpdateReturning();
    try (Statement s = c.createStatement()) {
      for (String statement : begin) {
        s.execute(statement);
      }
      if (jdbc) {
        c.setAutoCommit(false);
      }
      try {
        work.run();
        if (explicit) {
          s.execute("COMMIT");
        } else if (jdbc) {
          c.commit();
        }
      } catch (Throwable e) { // even an Error must not commit or leave a transaction open
        try {
          if (explicit) {
            s.execute("ROLLBACK");
          } else if (jdbc) {
            c.rollback();
          }
        } catch (SQLException rollbackFailure) {
          e.addSuppressed(rollbackFailure);
        }
        throw e;
      } finally {
        if (jdbc) {
          c.setAutoCommit(true);
        }
      }
    }
  }

  private void claimOnce(Connection c, int limit, List<Long> probe, List<Claimed<T>> rows)
      throws SQLException {
    if (sql.dialect.claimsWithUpdateReturning()) {
      statements.with(
          c,
          probe != null ? sql.probeReturning(probe.size()) : sql.claimReturning,
          ps -> {
            int p = 1;
            ps.setString(p++, settings.instanceId());
            ps.setLong(p++, settings.lease().toMillis());
            if (probe != null) { // a normal claim's limit is the batch size, in its SQL
              ps.setInt(bind(ps, p, probe), limit);
            }
            try (ResultSet rs = ps.executeQuery()) {
              read(rs, 0, rows);
            }
            return null;
          });
      return;
    }
    try (PreparedStatement ps =
        c.prepareStatement(probe != null ? sql.probeSelect(probe.size()) : sql.claimSelect)) {
      if (probe != null) {
        ps.setInt(bind(ps, 1, probe), limit);
      }
      try (ResultSet rs = ps.executeQuery()) {
        read(rs, 1, rows); // the SELECT sees attempts before the UPDATE adds one
      }
    }
    if (rows.isEmpty()) {
      return;
    }
    try (PreparedStatement ps = c.prepareStatement(sql.claimUpdate(rows.size()))) {
      int p = 1;
      ps.setString(p++, settings.instanceId());
      ps.setLong(p++, settings.lease().toMillis());
      for (Claimed<T> row : rows) {
        ps.setLong(p++, row.id());
      }
      ps.executeUpdate();
    }
  }

  /** Binds {@code ids} (if any) from parameter {@code p}; returns the next parameter's index. */
  private static int bind(PreparedStatement ps, int p, List<Long> ids) throws SQLException {
    if (ids != null) {
      for (long id : ids) {
        ps.setLong(p++, id);
      }
    }
    return p;
  }

  private void read(ResultSet rs, int attemptOffset, List<Claimed<T>> rows) throws SQLException {
    while (rs.next()) {
      long id = rs.getLong("id");
      int attempt = rs.getInt("attempts") + attemptOffset;
      Claimed<T> row;
      try {
        row = table.reader().read(rs, sql.dialect, id, attempt);
      } catch (RuntimeException e) {
        // e.g. headers written by something else: park this row, never block the others
        row = Claimed.unreadable(id, attempt, e);
      }
      rows.add(row);
    }
  }
}
