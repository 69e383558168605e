package dev.postbox.internal.sql;

import dev.postbox.internal.jdbc.Jdbc;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * SQLite's claim: one writer per file, so the transaction takes the write lock up front ({@code
 * BEGIN IMMEDIATE}), finishes the rows delivered since the last claim, claims with one {@code
 * UPDATE … RETURNING}, and commits.
 */
final class WriteLockedClaim extends LeasingClaim {

  WriteLockedClaim(QueueSql sql, String owner, long leaseMillis, boolean keepDone) {
    super(sql, owner, leaseMillis, keepDone);
  }

  @Override
  public <T> ClaimReport claim(Connection c, ClaimRequest<T> request) throws SQLException {
    int limit = request.limit();
    Probe probe = request.probe();
    RowReader<T> reader = request.reader();
    List<Claimed<T>> into = request.into();
    boolean committing = false;
    try (Statement s = c.createStatement()) {
      try {
        for (String begin : sql.beginClaim) {
          s.execute(begin);
        }
        finish(c, request.finish());
        boolean heads = probe == null && sql.text(Sql.CLAIM_HEADS) != null;
        sql.statements.with(
            c,
            probe != null
                ? sql.probe(probe)
                : heads ? sql.text(Sql.CLAIM_HEADS) : sql.text(Sql.CLAIM),
            ps -> {
              int p = 1;
              ps.setString(p++, owner);
              ps.setLong(p++, leaseMillis);
              if (probe != null) { // a normal claim's limit is the batch size, in its SQL
                ps.setInt(QueueSql.bindIds(ps, p, probe.excluded()), limit);
              }
              try (ResultSet rs = ps.executeQuery()) {
                ClaimedRows.read(rs, sql, 0, true, reader, into, null, null);
              }
              return null;
            });
        if (sql.keyOrder != null && probe == null && !into.isEmpty()) {
          addRuns(c, limit, reader, into);
        }
        boolean searchedAll = true;
        if (heads && into.size() < limit) {
          int window = window(c);
          searchedAll = walk.windowHeldAll(window);
          if (walk.wanted(window, into.size(), limit)) {
            List<Claimed<T>> far = new ArrayList<>();
            searchedAll = addFarHeads(c, limit - into.size(), request, far);
            if (!far.isEmpty()) {
              addRuns(c, limit - into.size(), reader, far);
            }
            into.addAll(far);
          }
        }
        committing = true;
        s.execute(Jdbc.COMMIT);
        return ClaimReport.searched(searchedAll);
      } catch (Throwable e) { // even an Error must not commit or leave a transaction open
        try {
          s.execute(Jdbc.ROLLBACK);
        } catch (SQLException rollbackFailure) {
          e.addSuppressed(rollbackFailure);
        }
        if (!committing && e instanceof SQLException failure) {
          throw new NothingWritten(failure); // failed before the COMMIT was sent
        }
        throw e;
      }
    }
  }

  /**
   * How many due rows are left, counted up to a window's size: SQLite's claim statement does not
   * return the size of the window it searched, and the rows it took are no longer due, so a count
   * that reaches the window says that heads may be waiting beyond it.
   */
  private int window(Connection c) throws SQLException {
    return sql.statements.with(
        c,
        sql.text(Sql.WINDOW_ROWS),
        ps -> {
          try (ResultSet rs = ps.executeQuery()) {
            return rs.next() ? rs.getInt(1) : 0;
          }
        });
  }

  /**
   * Leases into {@code far} up to {@code room} heads a walk over the keys finds ({@link KeyWalk};
   * every key's if {@code searchAll}), but those the request's {@code into} holds already; the
   * write lock is held. Returns whether the walk offered every claimable row.
   */
  private <T> boolean addFarHeads(
      Connection c, int room, ClaimRequest<T> request, List<Claimed<T>> far) throws SQLException {
    KeyWalk.Found found = headsBeyond(c, room, request.searchAll());
    List<Long> ids = new ArrayList<>(found.ids());
    Set<Long> taken = new HashSet<>();
    request.into().forEach(row -> taken.add(row.id()));
    ids.removeIf(taken::contains);
    if (ids.isEmpty()) {
      return found.everyHead();
    }
    sql.statements.with(
        c,
        sql.withIds(Sql.LEASE_HEADS, ids.size()),
        ps -> {
          bindLease(ps);
          ps.setInt(QueueSql.bindIds(ps, 3, ids), room);
          try (ResultSet rs = ps.executeQuery()) {
            ClaimedRows.read(rs, sql, 0, true, request.reader(), far, null, null);
          }
          return null;
        });
    return found.everyHead();
  }

  /** Leases the runs behind the heads in {@code into} ({@link Runs}); the write lock is held. */
  private <T> void addRuns(Connection c, int limit, RowReader<T> reader, List<Claimed<T>> into)
      throws SQLException {
    List<List<Long>> runs = Runs.plan(sql, c, into, limit);
    List<Long> ids = Runs.ids(runs);
    if (ids.isEmpty()) {
      return;
    }
    List<Claimed<T>> leased = new ArrayList<>(ids.size());
    sql.statements.with(
        c,
        sql.withIds(Sql.LEASE_FOLLOWERS, ids.size()),
        ps -> {
          bindLease(ps);
          QueueSql.bindIds(ps, 3, ids);
          try (ResultSet rs = ps.executeQuery()) {
            ClaimedRows.read(rs, sql, 0, false, reader, leased, null, null);
          }
          return null;
        });
    into.addAll(Runs.unbroken(runs, leased));
  }
}
