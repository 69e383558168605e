package dev.postbox.internal.sql;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * H2's claim, in one JDBC transaction: the finish of delivered rows, an unlocked read of due ids, a
 * locking read of those by primary key that skips rows others hold, an UPDATE by id. A claimer
 * stalled mid-claim holds no row but those it is claiming. {@link PipelinedClaim} sends the same
 * steps as batches of text.
 */
class LockByIdClaim extends LeasingClaim {
  /** Candidate windows one claim reads at most before it settles for the rows it has. */
  static final int MAX_WINDOWS = 8;

  LockByIdClaim(QueueSql sql, String owner, long leaseMillis, boolean keepDone) {
    super(sql, owner, leaseMillis, keepDone);
  }

  @Override
  public <T> ClaimReport claim(Connection c, ClaimRequest<T> request) throws SQLException {
    c.setAutoCommit(false);
    boolean committing = false;
    try {
      finish(c, request.finish());
      // read after the finish, so that rows committed meanwhile are in this claim, not the next
      boolean searchedAll = lockWithRuns(c, request);
      lease(c, ids(request.into(), true), false);
      lease(c, ids(request.into(), false), true);
      committing = true;
      c.commit();
      return ClaimReport.searched(searchedAll);
    } catch (Throwable e) { // even an Error must not commit or leave a transaction open
      try {
        c.rollback();
      } catch (SQLException rollbackFailure) {
        e.addSuppressed(rollbackFailure);
      }
      if (!committing && e instanceof SQLException s) {
        throw new NothingWritten(s); // failed before the commit was sent
      }
      throw e;
    } finally {
      c.setAutoCommit(true);
    }
  }

  /**
   * The ids of the rows of {@code rows} whose attempt the claim counts ({@code charged}), or not.
   */
  static <T> List<Long> ids(List<Claimed<T>> rows, boolean charged) {
    List<Long> ids = new ArrayList<>(rows.size());
    for (Claimed<T> row : rows) {
      if (row.charged() == charged) {
        ids.add(row.id());
      }
    }
    return ids;
  }

  /** Leases the locked rows {@code ids}, a run's rows behind their heads without an attempt. */
  private void lease(Connection c, List<Long> ids, boolean run) throws SQLException {
    if (ids.isEmpty()) {
      return;
    }
    try (PreparedStatement ps =
        c.prepareStatement(sql.withIds(run ? Sql.LEASE_RUN : Sql.LEASE, ids.size()))) {
      bindLease(ps);
      QueueSql.bindIds(ps, 3, ids);
      ps.executeUpdate();
    }
  }

  /**
   * Locks the request's rows into its {@code into} ({@link #lock}); on a table ordered by key, with
   * the runs behind the heads ({@link #addRuns}), and if the window was full and the claim is still
   * short, the heads a walk over the keys finds ({@link KeyWalk}; every key's if {@code
   * searchAll}), with their runs. Returns whether every claimable row was looked at.
   */
  <T> boolean lockWithRuns(Connection c, ClaimRequest<T> request) throws SQLException {
    int limit = request.limit();
    Probe probe = request.probe();
    RowReader<T> reader = request.reader();
    List<Claimed<T>> into = request.into();
    int window = lock(c, limit, probe, reader, into);
    addRuns(c, limit, probe, reader, into);
    if (probe != null || sql.keyOrder == null) {
      return true;
    }
    if (!walk.wanted(window, into.size(), limit)) {
      return walk.windowHeldAll(window);
    }
    int room = limit - into.size();
    KeyWalk.Found found = headsBeyond(c, room, request.searchAll());
    List<Long> far = new ArrayList<>(found.ids());
    Set<Long> taken = new HashSet<>();
    into.forEach(row -> taken.add(row.id()));
    far.removeIf(taken::contains);
    List<Claimed<T>> farRows = new ArrayList<>();
    lockCandidates(c, far, room, null, reader, farRows);
    addRuns(c, room, null, reader, farRows);
    into.addAll(farRows);
    return found.everyHead();
  }

  /**
   * Reads candidate ids, then locks up to {@code limit} of them that are still due (read into
   * {@code into}), window after window: a window whose rows other claimers hold (or froze holding)
   * must not hide the rows behind it. On a table ordered by key, one window, whose candidates are
   * the oldest row of each key in it. Returns the size of the last window read.
   */
  private <T> int lock(
      Connection c, int limit, Probe probe, RowReader<T> reader, List<Claimed<T>> into)
      throws SQLException {
    List<Long> tried = new ArrayList<>(probe == null ? List.of() : probe.excluded());
    int size = probe == null ? sql.window : 2 * limit;
    boolean keyed = probe == null && sql.keyOrder != null;
    int rows = 0;
    for (int window = 1; into.size() < limit; window++) {
      List<Long> candidates = new ArrayList<>(size);
      rows = candidates(c, size, probe, tried, candidates);
      lockCandidates(c, candidates, limit, probe, reader, into);
      if (keyed || rows < size || window == MAX_WINDOWS) {
        break;
      }
      tried.addAll(candidates);
    }
    return rows;
  }

  /** Locks up to {@code limit - into.size()} of {@code candidates} still due into {@code into}. */
  private <T> void lockCandidates(
      Connection c,
      List<Long> candidates,
      int limit,
      Probe probe,
      RowReader<T> reader,
      List<Claimed<T>> into)
      throws SQLException {
    if (candidates.isEmpty()) {
      return;
    }
    try (PreparedStatement ps = c.prepareStatement(sql.lockCandidates(candidates.size(), probe))) {
      ps.setInt(QueueSql.bindIds(ps, 1, candidates), limit - into.size());
      try (ResultSet rs = ps.executeQuery()) {
        // the SELECT sees the counts before the UPDATE adds one
        ClaimedRows.read(rs, sql, 1, true, reader, into, null, null);
      }
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
    try (PreparedStatement ps = c.prepareStatement(sql.withIds(Sql.LOCK_FOLLOWERS, ids.size()))) {
      QueueSql.bindIds(ps, 1, ids);
      try (ResultSet rs = ps.executeQuery()) {
        ClaimedRows.read(rs, sql, 1, false, reader, locked, null, null);
      }
    }
    into.addAll(Runs.unbroken(runs, locked));
  }

  /**
   * Reads the ids of due rows but {@code excluded}, without locks, newest first for a probe, into
   * {@code into}: all of them, or on a table ordered by key the unkeyed ones and the oldest of each
   * key (the others have it pending before them: not heads). Returns how many rows were read.
   */
  private int candidates(Connection c, int size, Probe probe, List<Long> excluded, List<Long> into)
      throws SQLException {
    boolean keyed = probe == null && sql.keyOrder != null;
    Map<String, Long> oldestOfKey = keyed ? new LinkedHashMap<>() : null;
    int rows = 0;
    try (PreparedStatement ps = c.prepareStatement(sql.candidates(excluded.size(), probe))) {
      int p = QueueSql.bindIds(ps, 1, excluded);
      if (probe != null) {
        ps.setInt(p, size);
      }
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          rows++;
          long id = rs.getLong(1);
          String key = keyed ? rs.getString(2) : null;
          if (key == null) {
            into.add(id);
          } else {
            oldestOfKey.merge(key, id, Math::min);
          }
        }
      }
    }
    if (keyed) {
      into.addAll(oldestOfKey.values());
    }
    return rows;
  }
}
