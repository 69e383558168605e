package dev.postbox.internal.sql;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;

/**
 * PostgreSQL's claim: one {@code UPDATE … RETURNING} in auto-commit, which also finishes the rows
 * delivered since the last claim (the catalogue's {@code claim-after-finish}): one round trip and
 * one commit claim new rows and finish delivered ones. On a table ordered by key, a claim whose
 * window of due rows held too few heads is followed by a walk over the keys and a second claim of
 * the heads it found ({@link KeyWalk}). Each claim is sent after its plan settings ({@link
 * Sql#CLAIM_PLAN}), in the same text, so that it is planned for index scans whatever the table's
 * statistics say.
 */
final class OneStatementClaim extends LeasingClaim {
  // the settings a claim is planned under, sent before it ({@link Sql#CLAIM_PLAN}); null: none
  private final String plan;

  OneStatementClaim(QueueSql sql, String owner, long leaseMillis, boolean keepDone) {
    super(sql, owner, leaseMillis, keepDone);
    String text = sql.text(Sql.CLAIM_PLAN);
    this.plan = text == null ? null : text + "\n";
  }

  @Override
  public <T> ClaimReport claim(Connection c, ClaimRequest<T> request) throws SQLException {
    Finish carried = request.probe() == null ? request.finish() : null;
    if (request.probe() != null || !sql.runsInClaim()) { // a probe is one row
      claimRows(c, request, carried);
      return ClaimReport.ALL;
    }
    int limit = request.limit();
    RowReader<T> reader = request.reader();
    List<Claimed<T>> into = request.into();
    int window = claimRuns(c, carried, List.of(), limit, reader, into);
    if (!walk.wanted(window, into.size(), limit)) {
      return ClaimReport.searched(walk.windowHeldAll(window));
    }
    // the first claim has committed: its rows and finish stand whatever happens to this part,
    // whose failure the claim loop handles as a claim's (the walk's reads write nothing; the
    // second claim may have committed rows unseen); rows read from a second claim that failed
    // are not kept, as it may not have committed
    int room = limit - into.size();
    KeyWalk.Found far;
    try {
      far = headsBeyond(c, room, request.searchAll());
    } catch (SQLException e) {
      return new ClaimReport(false, new NothingWritten(e));
    }
    if (far.ids().isEmpty()) {
      return ClaimReport.searched(far.everyHead());
    }
    int firstPart = into.size();
    try {
      claimRuns(c, null, far.ids(), room, reader, into);
      return ClaimReport.searched(far.everyHead());
    } catch (SQLException e) {
      into.subList(firstPart, into.size()).clear();
      return new ClaimReport(false, e);
    }
  }

  /** A claim of rows in due order, or a probe. */
  private <T> void claimRows(Connection c, ClaimRequest<T> request, Finish carried)
      throws SQLException {
    Probe probe = request.probe();
    String statement;
    if (probe != null) {
      statement = sql.probe(probe);
    } else if (carried != null) {
      statement = planned(sql.claimAfterFinish(carried.ids.size(), keepDone));
    } else {
      statement = planned(sql.text(Sql.CLAIM));
    }
    sql.statements.with(
        c,
        statement,
        ps -> {
          int p = bindLease(ps);
          if (carried != null) {
            QueueSql.bindFence(ps, p, owner, carried.claims, carried.ids);
          } else if (probe != null) { // a normal claim's limit is the batch size, in its SQL
            ps.setInt(QueueSql.bindIds(ps, p, probe.excluded()), request.limit());
          }
          try (ResultSet rs = probe != null ? ps.executeQuery() : claimed(ps)) {
            ClaimedRows.read(rs, sql, 0, true, request.reader(), request.into(), carried, null);
          }
          return null;
        });
  }

  /**
   * A claim of up to {@code room} rows: heads, among the window's due rows and the {@code far}
   * ones, with the runs behind them; returns the window's size.
   */
  private <T> int claimRuns(
      Connection c,
      Finish carried,
      List<Long> far,
      int room,
      RowReader<T> reader,
      List<Claimed<T>> into)
      throws SQLException {
    String statement =
        planned(
            carried != null
                ? sql.claimRunsAfterFinish(carried.ids.size(), keepDone)
                : sql.claimRuns());
    int[] window = {0};
    sql.statements.with(
        c,
        statement,
        ps -> {
          int p = bindLease(ps);
          ps.setArray(p++, c.createArrayOf("bigint", far.toArray()));
          ps.setInt(p++, room);
          if (carried != null) {
            QueueSql.bindFence(ps, p, owner, carried.claims, carried.ids);
          }
          try (ResultSet rs = claimed(ps)) {
            ClaimedRows.read(rs, sql, 0, true, reader, into, carried, n -> window[0] = n);
          }
          return null;
        });
    return window[0];
  }

  /** {@code claim} after its plan settings, sent with it as one statement text. */
  private String planned(String claim) {
    return plan == null ? claim : plan + claim;
  }

  /** Runs {@code ps}, prepared from {@link #planned}, and returns the claim's rows. */
  private ResultSet claimed(PreparedStatement ps) throws SQLException {
    if (plan == null) {
      return ps.executeQuery();
    }
    ps.execute(); // the settings' row, then the claim's
    if (!ps.getMoreResults()) {
      throw new SQLException("a claim returned no rows after its plan settings");
    }
    return ps.getResultSet();
  }
}
