package dev.postbox.internal.sql;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;

/**
 * PostgreSQL's claim: one {@code UPDATE … RETURNING} in auto-commit, which also finishes the rows
 * delivered since the last claim ({@link QueueSqlHome#claimAfterFinish}): one round trip and one
 * commit claim new rows and finish delivered ones.
 */
final class OneStatementClaim implements ClaimStrategy {
  private final QueueSql sql;
  private final String owner;
  private final long leaseMillis;
  private final boolean keepDone;

  OneStatementClaim(QueueSql sql, String owner, long leaseMillis, boolean keepDone) {
    this.sql = sql;
    this.owner = owner;
    this.leaseMillis = leaseMillis;
    this.keepDone = keepDone;
  }

  @Override
  public <T> void claim(
      Connection c,
      int limit,
      Probe probe,
      Finish finish,
      RowReader<T> reader,
      List<Claimed<T>> into)
      throws SQLException {
    Finish carried = probe == null ? finish : null;
    boolean runs = probe == null && sql.runsInClaim(); // a probe is one row
    String statement;
    if (probe != null) {
      statement = sql.probe(probe);
    } else if (carried != null) {
      int n = carried.ids.size();
      statement = runs ? sql.claimRunsAfterFinish(n, keepDone) : sql.claimAfterFinish(n, keepDone);
    } else {
      statement = runs ? sql.claimRuns() : sql.claim;
    }
    sql.statements.with(
        c,
        statement,
        ps -> {
          int p = 1;
          ps.setString(p++, owner);
          ps.setLong(p++, leaseMillis);
          if (carried != null) {
            QueueSql.bindFence(ps, p, owner, carried.claims, carried.ids);
          } else if (probe != null) { // a normal claim's limit is the batch size, in its SQL
            ps.setInt(QueueSql.bindIds(ps, p, probe.excluded()), limit);
          }
          try (ResultSet rs = ps.executeQuery()) {
            ClaimedRows.read(rs, sql.dialect, 0, reader, into, carried, sql.keyColumn());
          }
          return null;
        });
  }
}
