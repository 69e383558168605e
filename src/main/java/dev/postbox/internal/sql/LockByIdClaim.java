package dev.postbox.internal.sql;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * H2's claim, in one JDBC transaction: the finish of delivered rows, an unlocked read of due ids, a
 * locking read of those by primary key that skips rows others hold, an UPDATE by id. A claimer
 * stalled mid-claim holds no row but those it is claiming. {@link PipelinedClaim} sends the same
 * steps as batches of text.
 */
class LockByIdClaim implements ClaimStrategy {
  /** Candidate windows one claim reads at most before it settles for the rows it has. */
  static final int MAX_WINDOWS = 8;

  final QueueSql sql;
  final String owner;
  final long leaseMillis;
  final boolean keepDone;

  LockByIdClaim(QueueSql sql, String owner, long leaseMillis, boolean keepDone) {
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
    c.setAutoCommit(false);
    try {
      if (finish != null) {
        finish.written = sql.finish(c, owner, finish.claims, finish.ids, keepDone);
      }
      // read after the finish, so that rows committed meanwhile are in this claim, not the next
      lock(c, limit, probe, reader, into);
      addRuns(c, limit, probe, reader, into);
      if (!into.isEmpty()) {
        List<Long> ids = new ArrayList<>(into.size());
        into.forEach(row -> ids.add(row.id()));
        try (PreparedStatement ps = c.prepareStatement(sql.lease(ids.size()))) {
          ps.setString(1, owner);
          ps.setLong(2, leaseMillis);
          QueueSql.bindIds(ps, 3, ids);
          ps.executeUpdate();
        }
      }
      c.commit();
    } catch (Throwable e) { // even an Error must not commit or leave a transaction open
      try {
        c.rollback();
      } catch (SQLException rollbackFailure) {
        e.addSuppressed(rollbackFailure);
      }
      throw e;
    } finally {
      c.setAutoCommit(true);
    }
  }

  /**
   * Reads candidate ids, then locks up to {@code limit} of them that are still due (read into
   * {@code into}), window after window: a window whose rows other claimers hold (or froze holding)
   * must not hide the rows behind it.
   */
  <T> void lock(Connection c, int limit, Probe probe, RowReader<T> reader, List<Claimed<T>> into)
      throws SQLException {
    List<Long> tried = new ArrayList<>(probe == null ? List.of() : probe.excluded());
    int size = probe == null ? sql.window : 2 * limit;
    for (int window = 1; into.size() < limit; window++) {
      List<Long> candidates = candidates(c, size, probe, tried);
      if (candidates.isEmpty()) {
        break;
      }
      try (PreparedStatement ps =
          c.prepareStatement(sql.lockCandidates(candidates.size(), probe))) {
        ps.setInt(QueueSql.bindIds(ps, 1, candidates), limit - into.size());
        try (ResultSet rs = ps.executeQuery()) {
          // the SELECT sees the counts before the UPDATE adds one
          ClaimedRows.read(rs, sql.dialect, 1, reader, into, null, sql.keyColumn());
        }
      }
      if (candidates.size() < size || window == MAX_WINDOWS) {
        break;
      }
      tried.addAll(candidates);
    }
  }

  /**
   * On a table ordered by key, adds to the heads in {@code into} the runs behind them ({@link
   * Runs}), locked; a probe is one row and gets none.
   */
  <T> void addRuns(Connection c, int limit, Probe probe, RowReader<T> reader, List<Claimed<T>> into)
      throws SQLException {
    if (sql.keyOrder == null || probe != null || into.isEmpty()) {
      return;
    }
    List<List<Long>> runs = Runs.plan(sql, c, into, limit);
    List<Long> ids = Runs.ids(runs);
    if (ids.isEmpty()) {
      return;
    }
    List<Claimed<T>> locked = new ArrayList<>(ids.size());
    try (PreparedStatement ps = c.prepareStatement(sql.lockFollowers(ids.size()))) {
      QueueSql.bindIds(ps, 1, ids);
      try (ResultSet rs = ps.executeQuery()) {
        ClaimedRows.read(rs, sql.dialect, 1, reader, locked, null, sql.keyColumn());
      }
    }
    into.addAll(Runs.unbroken(runs, locked));
  }

  /** Ids of due rows but {@code excluded}, read without locks; newest first for a probe. */
  private List<Long> candidates(Connection c, int size, Probe probe, List<Long> excluded)
      throws SQLException {
    List<Long> ids = new ArrayList<>(size);
    try (PreparedStatement ps = c.prepareStatement(sql.candidates(excluded.size(), probe))) {
      int p = QueueSql.bindIds(ps, 1, excluded);
      if (probe != null) {
        ps.setInt(p, size);
      }
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          ids.add(rs.getLong(1));
        }
      }
    }
    return ids;
  }
}
