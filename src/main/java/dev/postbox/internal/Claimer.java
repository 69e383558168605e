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
 * a read of due ids without locks, then a locking SELECT of those ids that skips held rows plus an
 * UPDATE by primary key. Each claimed row gets {@code leased_by}, {@code attempts + 1}, {@code
 * claims + 1} and {@code available_at = now + lease}, all by the database clock. Deadlocks and busy
 * errors are retried.
 */
final class Claimer<T> {
  /** Candidate windows one claim reads at most before it settles for the rows it has. */
  private static final int MAX_WINDOWS = 8;

  private final DataSource dataSource;
  private final QueueSql sql;
  private final QueueTable<T> table;
  private final LaneSettings settings;
  private final List<String> begin;
  private final WriteGate gate;
  private final Statements statements;
  private final boolean keepDone;

  /** The instance id as a literal where the claim sends batches of text (MySQL), else null. */
  private final String instanceLiteral;

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
    this.keepDone = !settings.retention().isZero();
    this.instanceLiteral = sql.dialect.stringLiteral(settings.instanceId());
  }

  /**
   * Claims up to the batch size of due rows, from the oldest due (where the claim reads candidates
   * first: any of the oldest due not held by other claimers, up to eight windows of candidates);
   * or, for an outage probe ({@code probe} not null), the newest rows first except those in {@code
   * probe} (already probed), so a probe tries a message that arrived after a burst of poison rather
   * than the poison itself, and never the same failing message over and over, up to {@code limit}
   * rows.
   */
  List<Claimed<T>> claim(int limit, List<Long> probe) throws SQLException {
    return claim(limit, probe, null);
  }

  /**
   * {@link #claim(int, List)} that first records {@code carried} (null: nothing to record) in the
   * same statement or transaction, setting {@code carried.written}. If it throws, nothing of either
   * was written (but where the claim's UPDATE and COMMIT go as one batch, an UPDATE that failed on
   * a row this claim already holds, which takes a killed query or a server fault, leaves the finish
   * committed; writing it again then finds the rows gone and reports their leases lost).
   */
  List<Claimed<T>> claim(int limit, List<Long> probe, Carried carried) throws SQLException {
    List<Claimed<T>> rows = new ArrayList<>(limit);
    String finish = carried == null ? null : sql.finish(carried.outcomes.size(), keepDone);
    // one statement for both where the dialect has it, else the finish runs in the transaction
    String combined =
        finish != null && sql.dialect.claimsWithUpdateReturning()
            ? sql.claimReturningAfter(finish)
            : null;
    Retry.transients(
        sql.dialect,
        () -> {
          rows.clear();
          return gate.through(
              () -> {
                try (Connection c = dataSource.getConnection()) {
                  if (!c.getAutoCommit()) {
                    c.setAutoCommit(true); // a pool may hand out either; start from a known state
                  }
                  if (instanceLiteral != null) {
                    claimInBatches(c, limit, probe, rows, carried, finish);
                  } else {
                    inTransaction(
                        c,
                        finish != null && combined == null,
                        () -> claimOnce(c, limit, probe, rows, carried, finish, combined));
                  }
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

  /** Runs {@code work} in one transaction; {@code twoStatements}: even where a claim needs none. */
  private void inTransaction(Connection c, boolean twoStatements, Work work) throws SQLException {
    Dialect dialect = sql.dialect;
    boolean explicit = !begin.isEmpty();
    boolean jdbc = !explicit && (!dialect.claimsWithUpdateReturning() || twoStatements);
    try (Statement s = c.createStatement()) {
      try {
        if (explicit) {
          s.execute(begin.get(0));
        }
        if (jdbc) {
          c.setAutoCommit(false);
        }
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

  private void claimOnce(
      Connection c,
      int limit,
      List<Long> probe,
      List<Claimed<T>> rows,
      Carried carried,
      String finish,
      String combined)
      throws SQLException {
    if (finish != null && combined == null) {
      carried.written =
          statements.with(c, finish, ps -> bindFinish(ps, 1, carried).executeUpdate());
    }
    if (sql.dialect.claimsWithUpdateReturning()) {
      statements.with(
          c,
          combined != null
              ? combined
              : probe != null ? sql.probeReturning(probe.size()) : sql.claimReturning,
          ps -> {
            int p = 1;
            ps.setString(p++, settings.instanceId());
            ps.setLong(p++, settings.lease().toMillis());
            if (combined != null) {
              bindFinish(ps, p, carried);
            } else if (probe != null) { // a normal claim's limit is the batch size, in its SQL
              ps.setInt(bind(ps, p, probe), limit);
            }
            try (ResultSet rs = ps.executeQuery()) {
              read(rs, 0, rows, combined != null ? carried : null);
            }
            return null;
          });
      return;
    }
    // read after the finish, so that rows committed meanwhile are in this claim, not the next
    lock(c, limit, probe, rows);
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

  /**
   * The two-step claim in four round trips instead of six, where the driver sends a batch of text
   * statements in one (MariaDB Connector/J 3 pipelines it): the begin with the finish, the read of
   * the candidates, the locking read, the UPDATE with the COMMIT; values are written into the
   * batched statements.
   */
  private void claimInBatches(
      Connection c,
      int limit,
      List<Long> probe,
      List<Claimed<T>> rows,
      Carried carried,
      String finish)
      throws SQLException {
    try (Statement s = c.createStatement()) {
      try { // a batch may have started the transaction before one of its statements failed
        for (String statement : begin) {
          s.addBatch(statement);
        }
        if (carried != null) {
          List<Long> ids = carried.outcomes.stream().map(o -> o.row().id()).toList();
          s.addBatch(inlined(finish, carried.claims, ids));
        }
        int[] counts = s.executeBatch();
        if (carried != null) {
          int written = counts[counts.length - 1];
          // SUCCESS_NO_INFO from some driver: unknown, so report no lease as lost
          carried.written = written >= 0 ? written : carried.outcomes.size();
        }
        // the candidates are read after the begin, not before it in auto-commit: a round trip
        // between that read and the locking one leaves rows committed meanwhile to the next claim
        lock(c, limit, probe, rows);
        if (!rows.isEmpty()) {
          List<Long> ids = rows.stream().map(Claimed::id).toList();
          // if the UPDATE failed, the COMMIT would still run: that commits the finish and the
          // locks only, as two transactions would (the rows stay due for the next claim)
          s.addBatch(inlined(sql.claimUpdate(ids.size()), settings.lease().toMillis(), ids));
        }
        s.addBatch("COMMIT");
        s.executeBatch();
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

  /** {@code sql} whose parameters (leased_by, a number, then {@code ids}) are written in. */
  private String inlined(String sql, long number, List<Long> ids) {
    List<String> values = new ArrayList<>(ids.size() + 2);
    values.add(instanceLiteral);
    values.add(Long.toString(number));
    for (long id : ids) {
      values.add(Long.toString(id));
    }
    return QueueSql.inline(sql, values);
  }

  /**
   * The two steps of a two-step claim after the begin: reads candidate ids, then locks up to {@code
   * limit} of them that are still due (read into {@code rows}), window after window. A window whose
   * rows other claimers hold (or froze holding) must not hide the rows behind it.
   */
  private void lock(Connection c, int limit, List<Long> probe, List<Claimed<T>> rows)
      throws SQLException {
    List<Long> tried = new ArrayList<>(probe == null ? List.of() : probe);
    int size = probe == null ? sql.candidateWindow() : 2 * limit;
    for (int window = 1; rows.size() < limit; window++) {
      List<Long> candidates = candidates(c, size, probe != null, tried);
      if (candidates.isEmpty()) {
        break;
      }
      try (PreparedStatement ps =
          c.prepareStatement(sql.lockCandidates(candidates.size(), probe != null))) {
        ps.setInt(bind(ps, 1, candidates), limit - rows.size());
        try (ResultSet rs = ps.executeQuery()) {
          read(rs, 1, rows, null); // the SELECT sees the counts before the UPDATE adds one
        }
      }
      if (candidates.size() < size || window == MAX_WINDOWS) {
        break;
      }
      tried.addAll(candidates);
    }
  }

  /**
   * The first step of a two-step claim: ids of due rows, read without locks, so that a claimer
   * stalled mid-claim holds no row but those it is claiming.
   */
  private List<Long> candidates(Connection c, int size, boolean probe, List<Long> excluded)
      throws SQLException {
    List<Long> ids = new ArrayList<>(size);
    String select =
        excluded.isEmpty() && !probe ? sql.claimCandidates : sql.candidates(excluded.size(), probe);
    try (PreparedStatement ps = c.prepareStatement(select)) {
      int p = bind(ps, 1, excluded);
      if (probe) {
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

  /** Binds {@code ids} (if any) from parameter {@code p}; returns the next parameter's index. */
  private static int bind(PreparedStatement ps, int p, List<Long> ids) throws SQLException {
    if (ids != null) {
      for (long id : ids) {
        ps.setLong(p++, id);
      }
    }
    return p;
  }

  /** Binds {@code carried}'s fence and ids from parameter {@code p}; returns {@code ps}. */
  private PreparedStatement bindFinish(PreparedStatement ps, int p, Carried carried)
      throws SQLException {
    ps.setString(p++, settings.instanceId());
    ps.setInt(p++, carried.claims);
    for (Outcome o : carried.outcomes) {
      ps.setLong(p++, o.row().id());
    }
    return ps;
  }

  /**
   * Reads the claimed rows; with {@code carried}, also the count of finished rows that every row of
   * a combined claim carries (a row with a NULL id only carries the count).
   */
  private void read(ResultSet rs, int claimOffset, List<Claimed<T>> rows, Carried carried)
      throws SQLException {
    while (rs.next()) {
      if (carried != null) {
        carried.written = rs.getInt("finished$rows");
      }
      long id = rs.getLong("id");
      if (carried != null && rs.wasNull()) {
        continue;
      }
      int attempt = rs.getInt("attempts") + claimOffset;
      int claims = rs.getInt("claims") + claimOffset;
      Claimed<T> row;
      try {
        row = table.reader().read(rs, sql.dialect, id, attempt, claims);
      } catch (RuntimeException e) {
        // e.g. headers written by something else: park this row, never block the others
        row = Claimed.unreadable(id, attempt, claims, e);
      }
      rows.add(row);
    }
  }
}
