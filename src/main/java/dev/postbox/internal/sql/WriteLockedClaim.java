package dev.postbox.internal.sql;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/**
 * SQLite's claim: one writer per file, so the transaction takes the write lock up front ({@code
 * BEGIN IMMEDIATE}), finishes the rows delivered since the last claim, claims with one {@code
 * UPDATE … RETURNING}, and commits.
 */
final class WriteLockedClaim implements ClaimStrategy {
  private final QueueSql sql;
  private final String owner;
  private final long leaseMillis;
  private final boolean keepDone;

  WriteLockedClaim(QueueSql sql, String owner, long leaseMillis, boolean keepDone) {
    this.sql = sql;
    this.owner = owner;
    this.leaseMillis = leaseMillis;
    this.keepDone = keepDone;
  }

  @Override
  public <T> void claim(
      Connection c,
      int limit,
      List<Long> probe,
      Finish finish,
      RowReader<T> reader,
      List<Claimed<T>> into)
      throws SQLException {
    try (Statement s = c.createStatement()) {
      try {
        for (String begin : sql.beginClaim) {
          s.execute(begin);
        }
        if (finish != null) {
          finish.written = sql.finish(c, owner, finish.claims, finish.ids, keepDone);
        }
        sql.statements.with(
            c,
            probe != null ? sql.probe(probe.size()) : sql.claim,
            ps -> {
              int p = 1;
              ps.setString(p++, owner);
              ps.setLong(p++, leaseMillis);
              if (probe != null) { // a normal claim's limit is the batch size, in its SQL
                ps.setInt(QueueSql.bindIds(ps, p, probe), limit);
              }
              try (ResultSet rs = ps.executeQuery()) {
                ClaimedRows.read(rs, sql.dialect, 0, reader, into, null);
              }
              return null;
            });
        s.execute("COMMIT");
      } catch (Throwable e) { // even an Error must not commit or leave a transaction open
        try {
          s.execute("ROLLBACK");
        } catch (SQLException rollbackFailure) {
          e.addSuppressed(rollbackFailure);
        }
        throw e;
      }
    }
  }
}
