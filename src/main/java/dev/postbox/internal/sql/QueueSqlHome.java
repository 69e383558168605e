package dev.postbox.internal.sql;

import java.util.List;

/**
 * The statements of one database, as templates. Placeholders, filled once per table by {@link
 * QueueSql}: {@code {table}} the table's name; {@code {columns}} its own columns a claim returns;
 * {@code {filter}} its extra claim condition ({@code " AND …"} or nothing; for a table ordered by
 * key it includes that a keyed row is the head of its key, see {@link KeyOrder}); {@code {key}} the
 * key column of such a table; {@code {claimSet}} and {@code {doneSet}} its extra assignments when
 * claimed and when finished ({@code ", …"} or nothing); {@code {ref}} and {@code {topic}} its row
 * reference and topic columns, {@code {listedKey}} its rows' key as the admin calls list it; {@code
 * {limit}} the batch size and {@code {window}} the due rows a claim searches for heads, written in
 * as digits. Filled per statement: {@code {ids}} as many {@code ?} as ids are bound, {@code
 * {excluded}} nothing or {@code " AND id NOT IN (?, …)"}. Every other value is a bound parameter,
 * named in order in each comment.
 *
 * <p>States: 0 pending, 1 done (kept for retention), 2 parked. Every change of a claimed row is
 * fenced by {@code leased_by} and {@code claims}, which only grows.
 */
interface QueueSqlHome {

  /** How this database claims: which {@link ClaimStrategy} runs the claim statements below. */
  enum Claiming {
    /** One {@code UPDATE … RETURNING}, the finish of delivered rows in the same statement. */
    ONE_STATEMENT,
    /** {@code BEGIN IMMEDIATE}, the finish, one {@code UPDATE … RETURNING}, {@code COMMIT}. */
    WRITE_LOCKED_TRANSACTION,
    /** An unlocked read of due ids, a locking read of those by primary key, an UPDATE by id. */
    LOCK_BY_ID,
    /** {@link #LOCK_BY_ID} sent as pipelined batches of text, values written in. */
    LOCK_BY_ID_PIPELINED
  }

  Claiming claiming();

  /**
   * Whether the check that a keyed row is the head of its key probes the key index once per
   * blocking state ({@link KeyOrder#headFilter}), for a database that does not probe it with a list
   * of states.
   */
  default boolean headCheckPerState() {
    return false;
  }

  /** Claims up to {limit} due rows, oldest due first. Params: leased_by, lease millis. */
  default String claim() {
    return null;
  }

  /**
   * {@link #claim} that first finishes delivered rows ({@code {finish}}: {@link #delete} or {@link
   * #done}) in the same statement; every row returned has {@code finished$rows}, and a row with a
   * NULL id only carries it. Params: leased_by, lease millis, then the finish's.
   */
  default String claimAfterFinish() {
    return null;
  }

  /**
   * An outage probe: claims up to {@code ?} due rows, newest first, but those {@code {excluded}}.
   * Params: leased_by, lease millis, the excluded ids, the limit.
   */
  default String probe() {
    return null;
  }

  /**
   * For a table ordered by key, where the database does it in one statement: {@link #claim}, whose
   * rows are heads of their keys, plus the runs behind the keyed heads: the next due rows of the
   * key, up to the first that is not due, shared so that all rows come to at most {limit}. Params:
   * leased_by, lease millis.
   */
  default String claimRuns() {
    return null;
  }

  /** {@link #claimRuns} that first finishes delivered rows, as {@link #claimAfterFinish}. */
  default String claimRunsAfterFinish() {
    return null;
  }

  /**
   * For a table ordered by key where the claim statement takes heads only (the runs come in a
   * second step): {@link #claim} that looks for heads among the first {window} due rows only.
   * Params: leased_by, lease millis.
   */
  default String claimHeads() {
    return null;
  }

  /** With {@link #claimHeads}: how many rows are due, counted up to {window}. No params. */
  default String windowRows() {
    return null;
  }

  /**
   * Where the claim holds the write lock: leases up to {@code ?} of the rows {@code {ids}} that are
   * due and heads of their keys, as {@link #claimHeads} would. Params: leased_by, lease millis, the
   * ids, the limit.
   */
  default String leaseHeads() {
    return null;
  }

  /**
   * For a table ordered by key: a walk over the keys in key order, returning up to {@code ?} rows
   * of {@code walk_key}, {@code walk_id}, the id of the key's oldest pending row, and {@code
   * walk_due}, 1 if that row is due; read without locks. Where its first key is looked for, {@code
   * {after}} stands before the rest of the condition: {@code <key> > ? AND} to start after a key,
   * nothing to start from the first. Params: the key to start after (if any), how many keys.
   */
  default String walkKeys() {
    return null;
  }

  /**
   * For a table ordered by key: the ids of up to {@code ?} due rows without a key, oldest due first
   * (which the walk over keys does not see). Params: how many.
   */
  default String unkeyedDue() {
    return null;
  }

  /**
   * For a table ordered by key whose parked rows block their keys: of the keys {@code {ids}}, each
   * one that has a parked row, with the oldest parked row's id (served by the key index). Params:
   * the keys.
   */
  default String parkedOfKeys() {
    return """
        SELECT {key}, MIN(id) FROM {table} WHERE {key} IN ({ids}) AND state = 2 GROUP BY {key}""";
  }

  /**
   * Where one statement per key is cheaper than {@link #walkKeys}: the first key after {@code ?} as
   * one row of {@code walk_key}, {@code walk_id} and {@code walk_due}. Params: the key to start
   * after.
   */
  default String walkKeyStep() {
    return null;
  }

  /** {@link #walkKeyStep} for the first key. No params. */
  default String walkKeyStepFromStart() {
    return null;
  }

  /**
   * For a table ordered by key where a claim adds the runs in a second step: one branch {@code {n}}
   * of a UNION ALL that reads, without locks, the ids of the next pending rows of a key behind its
   * head, oldest first, each with {@code run_key} and {@code ready} (1 if due). Params: the key,
   * the head's id, how many.
   */
  default String followers() {
    return null;
  }

  /**
   * Locks the followers {@code {ids}} still pending and due, and reads them as a claim does.
   * Params: the ids.
   */
  default String lockFollowers() {
    return null;
  }

  /**
   * Where the claim holds the write lock: leases the followers {@code {ids}} without counting an
   * attempt (as {@link #leaseRun}) and returns them as a claim does. Params: leased_by, lease
   * millis, the ids.
   */
  default String leaseFollowers() {
    return null;
  }

  /** Opens a claim's transaction on a connection in auto-commit mode; ended by COMMIT. */
  default List<String> beginClaim() {
    return List.of();
  }

  /**
   * First step of a claim by id: the ids of up to {window} due rows, oldest due first, but those
   * {@code {excluded}} (candidates other claimers held), read without locks. Params: the excluded.
   */
  default String candidates() {
    return null;
  }

  /** {@link #candidates} for a probe: newest first. Params: the excluded ids, the limit. */
  default String probeCandidates() {
    return null;
  }

  /**
   * Second step: locks up to {@code ?} of the candidates {@code {ids}} still due, skipping rows
   * others hold, looked up by primary key so no other row is locked. Params: the ids, the limit.
   */
  default String lockCandidates() {
    return null;
  }

  /** {@link #lockCandidates} for a probe: newest first. Params: the ids, the limit. */
  default String lockProbeCandidates() {
    return null;
  }

  /**
   * Third step: leases the locked rows {@code {ids}}, counting an attempt. Params: leased_by, lease
   * millis, the ids.
   */
  default String lease() {
    return null;
  }

  /**
   * Third step for the locked rows {@code {ids}} of runs behind their heads: {@link #lease} without
   * counting an attempt, which counts only once a row is handed to the transport (with its
   * outcome). Params: leased_by, lease millis, the ids.
   */
  default String leaseRun() {
    return null;
  }

  /**
   * Whether every claim statement returns, per row, {@code charged}: 1 if the claim counted an
   * attempt, 0 for a row of a run behind its head. Elsewhere the strategy knows which statement
   * took which rows.
   */
  default boolean claimReturnsCharge() {
    return false;
  }

  /** Success, deleting the rows {@code {ids}}. Params: leased_by, claims, the ids. */
  String delete();

  /** Success, keeping the rows {@code {ids}} as done. Params: leased_by, claims, the ids. */
  String done();

  /**
   * Failure: retry after a delay. Params: attempts, delay millis, last_error (null keeps the row's:
   * an outage refund, which is no failure of the row's own), id, leased_by, claims.
   */
  String fail();

  /** Failure for good: park. Params: attempts, last_error, id, leased_by, claims. */
  String park();

  /**
   * 1 if the row is parked and was not claimed after claim {@code claims} (a parked row is not
   * claimed): the park of that claim stands, for a retried park that matched nothing. Params: id,
   * claims. The same on every database.
   */
  default String parkedAt() {
    return "SELECT COUNT(*) FROM {table} WHERE id = ? AND claims = ? AND state = 2";
  }

  /**
   * Hand back a row not started: due at once, the attempt its claim counted refunded (where the
   * claim did not return the row's due time). Params: the attempt to refund (1, or 0 for a row of a
   * run behind its head, which its claim did not count), id, leased_by, claims.
   */
  String release();

  /**
   * {@link #release} to the time the row was due before its claim. Params: the attempt to refund,
   * available_at, id, leased_by, claims. The same on every database; unused where {@link
   * #claimReturnsDue} is false.
   */
  default String releaseTo() {
    return """
        UPDATE {table}
        SET attempts = attempts - ?, available_at = ?, leased_by = NULL
        WHERE id = ? AND leased_by = ? AND claims = ?""";
  }

  /**
   * Whether every claim returns each row's {@code available_at} as it was before the claim, in a
   * column {@code due_before_claim} (a job row's own {@code available_at} is already the lease's
   * end), for {@link #releaseTo}.
   */
  default boolean claimReturnsDue() {
    return true;
  }

  /** Extends the leases of rows still held. Params: lease millis, leased_by, the ids. */
  String extend();

  /** Deletes up to {@code ?} done rows past retention. Params: -retention millis, the limit. */
  String cleanup();

  /** Removes dead rows and index entries; null where the database needs no such statement. */
  default String vacuum() {
    return null;
  }

  /** Rows not finished and not parked. No params. */
  String countPending();

  /**
   * Counts of pending rows, of those whose time has come ({@code ready}), leased and parked rows,
   * the oldest pending row's time, the blocked keys ({@code {blockedKeys}}, an expression), the
   * ready rows waiting behind them ({@code {blocked}}, an expression; the due rows are the ready
   * ones but those) and now. No params.
   */
  String stats();

  /**
   * On a table ordered by key whose parked rows block their keys: up to {@code ?} such keys, oldest
   * parked first, each with its parked row and the count of rows waiting behind it. Params: the
   * limit.
   */
  default String blockedKeys() {
    return """
        SELECT p.{key} AS blocked_key, p.id, p.{ref} AS ref, p.{topic} AS topic, p.attempts,
          p.last_error, p.created_at,
          (SELECT COUNT(*) FROM {table} w WHERE w.{key} = p.{key} AND w.state = 0) AS waiting
        FROM {table} p
        WHERE p.state = 2 AND p.{key} IS NOT NULL AND NOT EXISTS (
          SELECT 1 FROM {table} e WHERE e.{key} = p.{key} AND e.state = 2 AND e.id < p.id)
        ORDER BY p.id LIMIT ?""";
  }

  /** Up to {@code ?} parked rows, oldest first. Params: the limit. */
  String parked();

  /**
   * Up to {@code ?} failing rows: pending ones that failed at least once (an outage refund records
   * no error, and a replay resets the attempts), soonest {@code available_at} first, with {@code
   * listed_key} and {@code leased}: 1 if a lease on the row has not run out yet (its {@code
   * available_at} is that lease's end). Params: the limit.
   */
  String failing();

  /** Makes the parked row with {@code {ref} = ?} due again, attempts reset. Params: the ref. */
  String replay();

  /** Makes every parked row due again, attempts reset. No params. */
  String replayAll();

  /** Deletes the parked row with {@code {ref} = ?}. Params: the ref. */
  String discard();

  /**
   * Deletes up to {@code ?} inbox rows older than the retention (on an inbox table: {@code {table}}
   * only). Params: -retention millis, the limit.
   */
  String inboxCleanup();
}
