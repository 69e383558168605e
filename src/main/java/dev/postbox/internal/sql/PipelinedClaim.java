package dev.postbox.internal.sql;

import dev.postbox.internal.jdbc.Jdbc;
import dev.postbox.internal.jdbc.SqlText;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * MySQL's and MariaDB's claim: {@link LockByIdClaim}'s steps in four round trips instead of six,
 * since MariaDB Connector/J 3 sends a batch of text statements in one (checked in the server's
 * general log): the begin with the finish, the read of the candidates, the locking read, the UPDATE
 * with the COMMIT. A claim that takes runs behind its heads sends the heads' UPDATE alone first:
 * the server runs every statement of a batch, and after a deadlock, which rolls back the whole
 * transaction, the rest run in auto-commit; only the batch's last UPDATE may be followed by the
 * COMMIT, which then commits nothing. Values are written into the batched statements: ids and
 * numbers as digits, the instance id as {@code _utf8mb4 X'…'}, read the same under every {@code
 * sql_mode}. (MySQL's own Connector/J runs such a batch one statement at a time: same statements,
 * no gain.)
 *
 * <p>If the UPDATE of the last batch fails (a lock wait timeout, which rolls back only its
 * statement; a killed query, a server fault), its COMMIT still runs: that commits the finish and
 * the locks only, as two transactions would, or after a deadlock nothing; the rows stay due for the
 * next claim. Its error is therefore no {@link NothingWritten}: the claim's retry, or the writer,
 * finishing the same rows again finds them gone (or, after a deadlock, still there, and finishes
 * them), which is no lost lease ({@link Finish#maybeWritten}).
 */
final class PipelinedClaim extends LockByIdClaim {
  private final String ownerLiteral;

  PipelinedClaim(QueueSql sql, String owner, long leaseMillis, boolean keepDone) {
    super(sql, owner, leaseMillis, keepDone);
    // hex digits after a character set introducer: the same under every sql_mode (ANSI_QUOTES,
    // NO_BACKSLASH_ESCAPES), and coercible to the column's collation
    this.ownerLiteral =
        "_utf8mb4 X'" + HexFormat.of().formatHex(owner.getBytes(StandardCharsets.UTF_8)) + "'";
  }

  @Override
  public <T> ClaimReport claim(Connection c, ClaimRequest<T> request) throws SQLException {
    boolean committing = false;
    try (Statement s = c.createStatement()) {
      try { // a batch may have started the transaction before one of its statements failed
        for (String statement : sql.beginClaim) {
          s.addBatch(statement);
        }
        Finish finish = request.finish();
        if (finish != null) {
          s.addBatch(
              inlined(
                  sql.finishSql(finish.ids.size(), keepDone),
                  finish.claims,
                  FinishTexts.padded(finish.ids)));
        }
        int[] counts = s.executeBatch();
        if (finish != null) {
          int written = counts[counts.length - 1];
          // SUCCESS_NO_INFO from some driver: unknown, so report no lease as lost
          finish.written = written >= 0 ? written : finish.ids.size();
        }
        // the candidates are read after the begin, not before it in auto-commit: a round trip
        // between that read and the locking one leaves rows committed meanwhile to the next claim
        boolean searchedAll = lockWithRuns(c, request);
        List<Long> heads = ids(request.into(), true);
        List<Long> runs = ids(request.into(), false); // not charged an attempt until sent
        if (!heads.isEmpty()) {
          s.addBatch(inlined(sql.withIds(Sql.LEASE, heads.size()), leaseMillis, heads));
          if (!runs.isEmpty()) {
            // alone: a deadlock rolls back the whole transaction, and the statements after it in
            // the batch then run in auto-commit, so the runs' lease would commit on its own
            s.executeBatch();
          }
        }
        if (!runs.isEmpty()) {
          s.addBatch(inlined(sql.withIds(Sql.LEASE_RUN, runs.size()), leaseMillis, runs));
        }
        s.addBatch(Jdbc.COMMIT);
        committing = true; // the COMMIT runs even if the UPDATE before it fails
        s.executeBatch();
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

  /** {@code statement} whose parameters (leased_by, a number, then {@code ids}) are written in. */
  String inlined(String statement, long number, List<Long> ids) {
    List<String> values = new ArrayList<>(ids.size() + 2);
    values.add(ownerLiteral);
    values.add(Long.toString(number));
    for (long id : ids) {
      values.add(Long.toString(id));
    }
    return SqlText.inline(statement, values);
  }
}
