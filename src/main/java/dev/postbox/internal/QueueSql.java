package dev.postbox.internal;

import dev.postbox.internal.dialect.Dialect;
import java.util.List;

/**
 * The engine's statements for one table in one dialect, built once. Every row change is fenced by
 * {@code leased_by} and {@code claims}, so only the claim that leased a row can finish it: {@code
 * claims} only grows, while {@code attempts} goes back on a hand-back, a refund or a replay.
 */
final class QueueSql {
  private static final String DUE = "state = 0 AND available_at <= ";
  private static final String OLDEST_DUE_FIRST = " ORDER BY available_at, id LIMIT ";
  // ids grow with inserts: the newest message is the likeliest not to be poison
  private static final String NEWEST_FIRST = " ORDER BY id DESC LIMIT ?";

  /**
   * An outage probe: {@link #claimReturning}, newest row first, skipping {@code excluded} rows
   * (probed already in this outage). Params: leased_by, lease millis, the excluded ids, limit.
   */
  String probeReturning(int excluded) {
    return claimReturning(notIn(excluded) + NEWEST_FIRST);
  }

  /**
   * {@link #claimCandidates} skipping {@code excluded} ids (candidates already tried in this claim;
   * for an outage probe also the rows probed already), newest first for a probe. Params: the
   * excluded ids, then for a probe the limit.
   */
  String candidates(int excluded, boolean probe) {
    return candidates(
        notIn(excluded) + (probe ? NEWEST_FIRST : OLDEST_DUE_FIRST + candidateWindow()));
  }

  /** How many candidate ids one read of a claim returns: twice the batch size. */
  int candidateWindow() {
    return 2 * batchSize;
  }

  private static String notIn(int n) {
    return n == 0 ? "" : " AND id NOT IN (" + marks(n) + ")";
  }

  final Dialect dialect;
  final String table;
  private final String returned;
  private final int batchSize;

  /**
   * One-statement claim of up to the batch size. Params: leased_by, lease millis. The batch size is
   * written into the SQL, not bound: a generic plan (PostgreSQL's, once pgjdbc server-prepares the
   * statement) would otherwise assume 10% of the table and may join the claimed rows by a full
   * scan.
   */
  final String claimReturning;

  /**
   * First step of a two-step claim: the ids of up to {@link #candidateWindow} due rows, oldest due
   * first, read without locks. No params.
   */
  final String claimCandidates;

  /** Failure. Params: state, attempts, delay millis, last_error, id, leased_by, claims. */
  final String fail;

  /** Hand back an unstarted row. Params: id, leased_by, claims. */
  final String release;

  /** Delete finished rows older than retention. Params: -retention millis, limit. */
  final String cleanup;

  private final String doneSet;
  private final String claimFilter;
  private final String claimSet;

  QueueSql(Dialect dialect, QueueTable<?> t, int batchSize) {
    this.dialect = dialect;
    this.table = t.name();
    this.returned = "id, attempts, claims, created_at, " + t.itemColumns();
    this.doneSet = t.doneSet();
    this.claimFilter = t.claimFilter();
    this.claimSet = t.claimSet();
    this.batchSize = batchSize;
    this.claimReturning = claimReturning(OLDEST_DUE_FIRST + batchSize);
    this.claimCandidates = candidates(0, false);
    this.fail =
        "UPDATE "
            + table
            + " SET state = ?, attempts = ?, available_at = "
            + dialect.nowPlusMillis()
            + ", leased_by = NULL, last_error = ?"
            + " WHERE id = ? AND leased_by = ? AND claims = ?";
    this.release =
        "UPDATE "
            + table
            + " SET attempts = attempts - 1, available_at = "
            + dialect.now()
            + ", leased_by = NULL WHERE id = ? AND leased_by = ? AND claims = ?";
    this.cleanup =
        dialect.deleteLimited(
            table, "id", "state = 1 AND available_at < " + dialect.nowPlusMillis());
  }

  /**
   * {@link #claimReturning} that first runs {@code finish} in the same statement, or null where the
   * dialect has no such form (then {@code finish} runs in the claim's transaction). Params:
   * leased_by, lease millis, then {@code finish}'s.
   */
  String claimReturningAfter(String finish) {
    return dialect.claimReturningAfter(
        table, due(OLDEST_DUE_FIRST + batchSize), claimSet, returned, finish);
  }

  private String claimReturning(String order) {
    return dialect.claimReturning(table, due(order), claimSet, returned);
  }

  private String due(String order) {
    return "SELECT id FROM "
        + table
        + " WHERE "
        + DUE
        + dialect.now()
        + claimFilter
        + order
        + dialect.skipLocked();
  }

  private String candidates(String order) {
    return "SELECT id FROM " + table + " WHERE " + DUE + dialect.now() + claimFilter + order;
  }

  /**
   * Second step of a two-step claim: locks up to a limit of those of {@code n} candidate ids that
   * are still due, skipping rows other claimers hold, looked up by primary key so that no other row
   * is locked. No ORDER BY for a claim: H2 would then lock every matching candidate before it sorts
   * and applies the limit (MySQL's primary key range returns them in id order anyway); a probe
   * takes the newest. Params: the n ids, then the limit.
   */
  String lockCandidates(int n, boolean probe) {
    return "SELECT "
        + returned
        + " FROM "
        + table
        + dialect.primaryKeyHint()
        + " WHERE id IN ("
        + marks(n)
        + ") AND "
        + DUE
        + dialect.now()
        + claimFilter
        + (probe ? " ORDER BY id DESC" : "")
        + " LIMIT ?"
        + dialect.skipLocked();
  }

  /** Third step of a two-step claim. Params: leased_by, lease millis, then n ids. */
  String claimUpdate(int n) {
    return "UPDATE "
        + table
        + " SET leased_by = ?, attempts = attempts + 1, claims = claims + 1"
        + claimSet
        + ", available_at = "
        + dialect.nowPlusMillis()
        + " WHERE id IN ("
        + marks(n)
        + ")";
  }

  /** Success: {@link #done} if finished rows are kept, else {@link #delete}. */
  String finish(int n, boolean keepDone) {
    return keepDone ? done(n) : delete(n);
  }

  /** Success, deleting. Params: leased_by, claims, then n ids. */
  String delete(int n) {
    return dialect.changeLeasedRows("DELETE FROM " + table, false, table, n);
  }

  /** Success, keeping the row as done. Params: leased_by, claims, then n ids. */
  String done(int n) {
    return dialect.changeLeasedRows(
        "UPDATE "
            + table
            + " SET state = 1, available_at = "
            + dialect.now()
            + ", leased_by = NULL"
            + doneSet,
        true,
        table,
        n);
  }

  /** Lease extension for rows still held. Params: lease millis, leased_by, then n ids. */
  String extend(int n) {
    return "UPDATE "
        + table
        + " SET available_at = "
        + dialect.nowPlusMillis()
        + " WHERE state = 0 AND leased_by = ? AND id IN ("
        + marks(n)
        + ")";
  }

  /**
   * {@code sql} with its parameters written in: the {@code i}-th {@code ?} replaced by the {@code
   * i}-th of {@code literals} (SQL literals already, e.g. digits). For the engine's own statements,
   * which hold no {@code ?} but their parameters.
   */
  static String inline(String sql, List<String> literals) {
    StringBuilder s = new StringBuilder(sql.length() + 16 * literals.size());
    int next = 0;
    for (int i = 0; i < sql.length(); i++) {
      char ch = sql.charAt(i);
      if (ch != '?') {
        s.append(ch);
      } else if (next < literals.size()) {
        s.append(literals.get(next++));
      } else {
        throw new IllegalArgumentException("more parameters than " + literals.size() + ": " + sql);
      }
    }
    if (next < literals.size()) {
      throw new IllegalArgumentException(
          next + " parameters, " + literals.size() + " values: " + sql);
    }
    return s.toString();
  }

  static String marks(int n) {
    StringBuilder s = new StringBuilder(n * 3);
    for (int i = 0; i < n; i++) {
      s.append(i == 0 ? "?" : ", ?");
    }
    return s.toString();
  }
}
