package dev.postbox.internal.sql;

/**
 * Every statement Postbox runs on a queue table in PostgreSQL (placeholders: {@link QueueSqlHome}).
 * The clock is {@code statement_timestamp()}, the time each statement started.
 */
final class PostgresQueueSql implements QueueSqlHome {

  @Override
  public Claiming claiming() {
    return Claiming.ONE_STATEMENT;
  }

  @Override
  public boolean claimReturnsCharge() {
    return true;
  }

  // The due rows are picked in a MATERIALIZED CTE, which runs exactly once: "id IN (subquery)" may
  // become a semi-join that re-runs the LIMITed FOR UPDATE subquery and leases more rows than the
  // LIMIT. Joined by primary key, it is planned as index probes even in the generic plan made while
  // the table was empty (pgjdbc keeps it for the connection's life); "id = ANY (ARRAY(subquery))"
  // got a sequential scan there, over every dead row of a grown table on each claim. The limit is
  // written in, not bound: a generic plan would assume 10% of the table. The lease CTE keeps the
  // parameters in the order of the other databases' claims. The CTE names hold a '$', which no
  // validated table name can, so they never clash with the table.

  /** Params: leased_by, lease millis. */
  @Override
  public String claim() {
    return """
        WITH claim$lease (lease_owner, lease_millis) AS (SELECT CAST(? AS VARCHAR), CAST(? AS BIGINT)),
        claim$due (due_id, due_available_at, due_charge) AS MATERIALIZED (
          SELECT id, available_at, 1 FROM {table}
          WHERE state = 0 AND available_at <= statement_timestamp(){filter}
          ORDER BY available_at, id LIMIT {limit} FOR UPDATE SKIP LOCKED)
        {lease}"""
        .replace("{lease}", LEASE);
  }

  // Rows finished here are leased by this instance, so they are not due and the claim cannot pick
  // them (should a lease have run out meanwhile, the claim skips the row this very statement
  // deletes, and the fenced finish counts it as lost). The count comes from a LEFT JOIN so that it
  // arrives even when nothing is claimed.

  /** Params: leased_by, lease millis, then the finish's: leased_by, claims, the ids. */
  @Override
  public String claimAfterFinish() {
    return """
        WITH claim$lease (lease_owner, lease_millis) AS (SELECT CAST(? AS VARCHAR), CAST(? AS BIGINT)),
        claim$finished AS ({finish} RETURNING id AS finished$id),
        claim$due (due_id, due_available_at, due_charge) AS MATERIALIZED (
          SELECT id, available_at, 1 FROM {table}
          WHERE state = 0 AND available_at <= statement_timestamp(){filter}
          ORDER BY available_at, id LIMIT {limit} FOR UPDATE SKIP LOCKED),
        claim$claimed AS ({lease})
        SELECT claim$claimed.*, claim$count.finished$rows
        FROM (SELECT COUNT(*) AS finished$rows FROM claim$finished) claim$count
        LEFT JOIN claim$claimed ON TRUE"""
        .replace("{lease}", LEASE);
  }

  // Heads: the claim looks for heads among the first {window} due rows only, so that a claim costs
  // the same however many rows wait behind busy heads (unbounded, a claim over 10 busy keys read
  // all 50,000 rows behind them, 100 ms each), and among the far heads it is given: each key's
  // oldest pending row, found by a walk over the keys ({@link #walkKeys}) when the window holds
  // too few. Of a key's rows in the window only the oldest can be its head (the others have it
  // pending before them), so only that one is checked, with one probe of the key index. Every
  // candidate passes the same checks under its row lock as before: pending, due, the head of its
  // key. The statement returns the window's size on every row (a row with a NULL
  // id only carries it), so that the claim knows whether heads may wait beyond it.
  // Runs: each keyed head brings the next rows of its key, read by the key index in id order up
  // to the first that is not due. Every head gets an equal share of the batch ((limit - 1) / heads
  // rows), so one long key does not crowd out the others; the runs are then cut to the batch, the
  // first rows behind every head before the second ones. The heads' locks keep the runs theirs:
  // no other claim can take a row whose key has an older pending row (the {filter}).
  // The constant LIMITs change nothing but the planner's estimates: a LIMIT computed at run time
  // is assumed to keep a tenth of a key's rows, and on a large table (500,000 rows, 10 keys) the
  // estimated cost passed jit_above_cost, so each claim spent tens of milliseconds compiling, and
  // the claimed rows were joined by a merge join over the whole primary key instead of probes.

  /** Params: leased_by, lease millis, the far heads' ids (an array), how many rows at most. */
  @Override
  public String claimRuns() {
    return """
        WITH claim$lease (lease_owner, lease_millis, far_ids, room) AS (
          SELECT CAST(? AS VARCHAR), CAST(? AS BIGINT), CAST(? AS BIGINT[]), CAST(? AS INTEGER)),
        {heads},
        {runs},
        claim$claimed AS ({lease})
        SELECT claim$claimed.*, claim$count.window$rows
        FROM (SELECT COUNT(*) AS window$rows FROM claim$window) claim$count
        LEFT JOIN claim$claimed ON TRUE"""
        .replace("{heads}", HEADS)
        .replace("{runs}", RUNS)
        .replace("{lease}", LEASE);
  }

  /**
   * Params: leased_by, lease millis, the far heads' ids (an array), how many rows at most, then the
   * finish's: leased_by, claims, the ids.
   */
  @Override
  public String claimRunsAfterFinish() {
    return """
        WITH claim$lease (lease_owner, lease_millis, far_ids, room) AS (
          SELECT CAST(? AS VARCHAR), CAST(? AS BIGINT), CAST(? AS BIGINT[]), CAST(? AS INTEGER)),
        claim$finished AS ({finish} RETURNING id AS finished$id),
        {heads},
        {runs},
        claim$claimed AS ({lease})
        SELECT claim$claimed.*, claim$count.finished$rows, claim$count.window$rows
        FROM (SELECT (SELECT COUNT(*) FROM claim$finished) AS finished$rows,
          (SELECT COUNT(*) FROM claim$window) AS window$rows) claim$count
        LEFT JOIN claim$claimed ON TRUE"""
        .replace("{heads}", HEADS)
        .replace("{runs}", RUNS)
        .replace("{lease}", LEASE);
  }

  // every claim's last step: leases the rows claim$due picked and returns them; a row of a run
  // behind its head is not charged an attempt (due_charge 0) until it is handed to the transport
  private static final String LEASE =
      """
      UPDATE {table}
        SET leased_by = claim$lease.lease_owner, attempts = attempts + claim$due.due_charge,
          claims = claims + 1{claimSet},
          available_at = statement_timestamp() + claim$lease.lease_millis * interval '1 millisecond'
        FROM claim$due, claim$lease WHERE id = claim$due.due_id
        RETURNING id, attempts, claims, last_error IS NOT NULL AS failed_before, created_at, {columns}, claim$due.due_available_at AS due_before_claim, claim$due.due_charge AS charged""";

  private static final String HEADS =
      """
      claim$window (window_id, window_key) AS MATERIALIZED (
          SELECT id, {key} FROM {table} WHERE state = 0 AND available_at <= statement_timestamp()
          ORDER BY available_at, id LIMIT {window}),
        claim$heads (head_id, head_key, head_at) AS MATERIALIZED (
          SELECT id, {key}, available_at FROM {table}
          WHERE id = ANY (ARRAY(
              SELECT window_id FROM claim$window WHERE window_key IS NULL
              UNION ALL SELECT MIN(window_id) FROM claim$window
                WHERE window_key IS NOT NULL GROUP BY window_key
              UNION ALL SELECT unnest(far_ids) FROM claim$lease))
            AND state = 0 AND available_at <= statement_timestamp(){filter}
          ORDER BY available_at, id LIMIT {limit} FOR UPDATE SKIP LOCKED)""";

  private static final String RUNS =
      """
      claim$next (next_id, next_at, next_pos, head_at, head_id) AS MATERIALIZED (
          SELECT n.id, n.available_at, n.pos, h.head_at, h.head_id FROM claim$heads h CROSS JOIN LATERAL (
            SELECT f.id, f.available_at, row_number() OVER (ORDER BY f.id) AS pos,
              bool_and(f.available_at <= statement_timestamp()) OVER (ORDER BY f.id) AS ready
            FROM (
              SELECT id, available_at FROM (
                SELECT id, available_at FROM {table} claim$follower
                WHERE claim$follower.{key} = h.head_key AND claim$follower.state = 0
                  AND claim$follower.id > h.head_id
                ORDER BY claim$follower.id LIMIT {limit}) claim$capped
              LIMIT (SELECT ({limit} - 1) / GREATEST(COUNT(*), 1) FROM claim$heads)) f) n
          WHERE h.head_key IS NOT NULL AND n.ready),
        claim$due (due_id, due_available_at, due_charge) AS MATERIALIZED (
          SELECT due_id, due_available_at, due_charge FROM (
            SELECT head_id AS due_id, head_at AS due_available_at, 1 AS due_charge FROM claim$heads
            UNION ALL
            (SELECT next_id, next_at, 0 FROM claim$next ORDER BY next_pos, head_at, head_id
             LIMIT {limit} - (SELECT COUNT(*) FROM claim$heads))) claim$all
          LIMIT (SELECT room FROM claim$lease))""";

  // The walk visits keys in the key index's order, one index probe per key (a loose index scan:
  // the recursive step jumps past all rows of the key it is on), and returns each key's oldest
  // pending row. Only a candidate: the claim checks it is due and the head of its key.

  /** Params: how many. */
  @Override
  public String unkeyedDue() {
    return """
        SELECT id FROM {table} WHERE {key} IS NULL AND state = 0 AND available_at <= statement_timestamp()
        ORDER BY available_at, id LIMIT ?""";
  }

  /** Params: the key to start after ({@code {after}}), how many keys. */
  @Override
  public String walkKeys() {
    return WALK;
  }

  private static final String WALK =
      """
      WITH RECURSIVE walk$keys (walk_key, walk_id, walk_at, walk_n) AS (
        (SELECT {key}, id, available_at, 1 FROM {table}
         WHERE {after}{key} IS NOT NULL AND state = 0 ORDER BY {key}, id LIMIT 1)
        UNION ALL
        SELECT walk$next.k, walk$next.id, walk$next.available_at, walk$keys.walk_n + 1
        FROM walk$keys CROSS JOIN LATERAL (
          SELECT {key} AS k, id, available_at FROM {table}
          WHERE {key} > walk$keys.walk_key AND state = 0 ORDER BY {key}, id LIMIT 1) walk$next
        WHERE walk$keys.walk_n < ?)
      SELECT walk_key, walk_id, CASE WHEN walk_at <= statement_timestamp() THEN 1 ELSE 0 END
        AS walk_due
      FROM walk$keys""";

  /** Params: leased_by, lease millis, the excluded ids, the limit. */
  @Override
  public String probe() {
    return """
        WITH claim$lease (lease_owner, lease_millis) AS (SELECT CAST(? AS VARCHAR), CAST(? AS BIGINT)),
        claim$due (due_id, due_available_at, due_charge) AS MATERIALIZED (
          SELECT id, available_at, 1 FROM {table}
          WHERE state = 0 AND available_at <= statement_timestamp(){filter}{excluded}
          ORDER BY id DESC LIMIT ? FOR UPDATE SKIP LOCKED)
        {lease}"""
        .replace("{lease}", LEASE);
  }

  /** Params: leased_by, claims, the ids. */
  @Override
  public String delete() {
    return """
        DELETE FROM {table} WHERE leased_by = ? AND claims = ? AND id IN ({ids})""";
  }

  /** Params: leased_by, claims, the ids. */
  @Override
  public String done() {
    return """
        UPDATE {table} SET state = 1, available_at = statement_timestamp(), leased_by = NULL{doneSet}
        WHERE leased_by = ? AND claims = ? AND id IN ({ids})""";
  }

  /** Params: attempts, delay millis, last_error, id, leased_by, claims. */
  @Override
  public String fail() {
    return """
        UPDATE {table}
        SET attempts = ?, available_at = statement_timestamp() + ? * interval '1 millisecond',
          leased_by = NULL, last_error = COALESCE(?, last_error)
        WHERE id = ? AND leased_by = ? AND claims = ?""";
  }

  /** Params: attempts, last_error, id, leased_by, claims. */
  @Override
  public String park() {
    return """
        UPDATE {table}
        SET state = 2, attempts = ?, available_at = statement_timestamp(), leased_by = NULL,
          last_error = ?
        WHERE id = ? AND leased_by = ? AND claims = ?""";
  }

  /** Params: the attempt to refund (1, or 0 if the claim counted none), id, leased_by, claims. */
  @Override
  public String release() {
    return """
        UPDATE {table}
        SET attempts = attempts - ?, available_at = statement_timestamp(), leased_by = NULL
        WHERE id = ? AND leased_by = ? AND claims = ?""";
  }

  /** Params: lease millis, leased_by, the ids. */
  @Override
  public String extend() {
    return """
        UPDATE {table} SET available_at = statement_timestamp() + ? * interval '1 millisecond'
        WHERE state = 0 AND leased_by = ? AND id IN ({ids})""";
  }

  /** Params: -retention millis, the limit. */
  @Override
  public String cleanup() {
    return """
        DELETE FROM {table} WHERE id IN (
          SELECT id FROM {table}
          WHERE state = 1 AND available_at < statement_timestamp() + ? * interval '1 millisecond'
          LIMIT ?)""";
  }

  /**
   * Each claim and finish leaves a dead entry at the head of the claim index, which every later
   * claim walks over until a vacuum removes it; autovacuum may come a minute later, or never.
   */
  @Override
  public String vacuum() {
    return "VACUUM (ANALYZE) {table}";
  }

  @Override
  public String countPending() {
    return "SELECT COUNT(*) FROM {table} WHERE state = 0";
  }

  @Override
  public String stats() {
    return """
        SELECT
          (SELECT COUNT(*) FROM {table} WHERE state = 0) AS pending,
          (SELECT COUNT(*) FROM {table}
           WHERE state = 0 AND available_at <= statement_timestamp()) AS ready,
          (SELECT COUNT(*) FROM {table}
           WHERE state = 0 AND available_at > statement_timestamp() AND leased_by IS NOT NULL)
            AS leased,
          (SELECT COUNT(*) FROM {table} WHERE state = 2) AS parked,
          (SELECT MIN(created_at) FROM {table} WHERE state = 0) AS oldest,
          {blockedKeys} AS blocked_keys,
          {blocked} AS blocked,
          statement_timestamp() AS db_now""";
  }

  /** Params: the limit. */
  @Override
  public String parked() {
    return """
        SELECT id, {ref} AS ref, {topic} AS topic, attempts, last_error, created_at
        FROM {table} WHERE state = 2 ORDER BY id LIMIT ?""";
  }

  /** Params: the limit. */
  @Override
  public String failing() {
    return """
        SELECT id, {ref} AS ref, {topic} AS topic, {listedKey} AS listed_key, attempts, last_error,
          available_at, created_at,
          CASE WHEN leased_by IS NOT NULL AND available_at > statement_timestamp() THEN 1 ELSE 0 END AS leased
        FROM {table} WHERE state = 0 AND attempts > 0 AND last_error IS NOT NULL
        ORDER BY available_at, id LIMIT ?""";
  }

  /** Params: the ref. */
  @Override
  public String replay() {
    return """
        UPDATE {table}
        SET state = 0, attempts = 0, available_at = statement_timestamp(), leased_by = NULL
        WHERE state = 2 AND {ref} = ?""";
  }

  @Override
  public String replayAll() {
    return """
        UPDATE {table}
        SET state = 0, attempts = 0, available_at = statement_timestamp(), leased_by = NULL
        WHERE state = 2""";
  }

  /** Params: the ref. */
  @Override
  public String discard() {
    return "DELETE FROM {table} WHERE state = 2 AND {ref} = ?";
  }

  /** Params: -retention millis, the limit. */
  @Override
  public String inboxCleanup() {
    return """
        DELETE FROM {table} WHERE (consumer, event_id) IN (
          SELECT consumer, event_id FROM {table}
          WHERE created_at < statement_timestamp() + ? * interval '1 millisecond'
          LIMIT ?)""";
  }
}
