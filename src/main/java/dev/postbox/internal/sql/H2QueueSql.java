package dev.postbox.internal.sql;

/**
 * Every statement Postbox runs on a queue table in H2 2.2.220+ on MVStore (placeholders: {@link
 * QueueSqlHome}). Like MySQL, a claim is an unlocked read of due ids, then {@code SELECT … FOR
 * UPDATE SKIP LOCKED} of those ids and an UPDATE, in one JDBC transaction.
 */
final class H2QueueSql implements QueueSqlHome {

  @Override
  public Claiming claiming() {
    return Claiming.LOCK_BY_ID;
  }

  /**
   * With {@code state IN (0, 2)} H2 read every index entry of the key to tell whether a row is its
   * head; with one state per probe it reads the range before the row.
   */
  @Override
  public boolean headCheckPerState() {
    return true;
  }

  /**
   * Ordered by the claim index's own columns, state first: H2 2.5 does not see that the index is in
   * due order once {@code state = 0} is fixed, and read and sorted every due row ("index sorted" in
   * EXPLAIN now). Params: the excluded ids.
   */
  @Override
  public String candidates() {
    return """
        SELECT id{windowKey} FROM {table}
        WHERE state = 0 AND available_at <= CURRENT_TIMESTAMP(6){filter}{excluded}
        ORDER BY state, available_at, id LIMIT {window}""";
  }

  /** Params: the excluded ids, the limit. */
  @Override
  public String probeCandidates() {
    return """
        SELECT id FROM {table}
        WHERE state = 0 AND available_at <= CURRENT_TIMESTAMP(6){filter}{excluded}
        ORDER BY id DESC LIMIT ?""";
  }

  /**
   * No ORDER BY: H2 would lock every matching candidate before it sorts and applies the limit.
   * Params: the ids, the limit.
   */
  @Override
  public String lockCandidates() {
    return """
        SELECT id, attempts, claims, last_error IS NOT NULL AS failed_before, created_at, {columns}, available_at AS due_before_claim FROM {table}
        WHERE id IN ({ids}) AND state = 0 AND available_at <= CURRENT_TIMESTAMP(6){filter}
        LIMIT ? FOR UPDATE SKIP LOCKED""";
  }

  /** Params: the ids, the limit. */
  @Override
  public String lockProbeCandidates() {
    return """
        SELECT id, attempts, claims, last_error IS NOT NULL AS failed_before, created_at, {columns}, available_at AS due_before_claim FROM {table}
        WHERE id IN ({ids}) AND state = 0 AND available_at <= CURRENT_TIMESTAMP(6){filter}
        ORDER BY id DESC LIMIT ? FOR UPDATE SKIP LOCKED""";
  }

  /**
   * Ordered by the key index's own columns, as the candidates are by the claim index's: ordered by
   * id alone, H2 read and sorted every pending row of the key. Params: the key, the head's id, how
   * many.
   */
  @Override
  public String followers() {
    return """
        SELECT * FROM (
          SELECT id, {key} AS run_key,
            CASE WHEN available_at <= CURRENT_TIMESTAMP(6) THEN 1 ELSE 0 END AS ready
          FROM {table} WHERE {key} = ? AND state = 0 AND id > ?
          ORDER BY {key}, state, id LIMIT ?) AS run{n}""";
  }

  // The walk over keys (KeyWalk) goes one key per statement, in process: H2 2.5 runs a recursive
  // CTE's correlated step as a scan and sort of every row past the key (200 ms for 10 keys over
  // 50,000 rows), while one step with its key bound is a probe of the key index (~70 µs). The
  // "state + 0" keeps H2 from the claim index (state = 0), from which it sorted every pending row.

  /** Params: how many. */
  @Override
  public String unkeyedDue() {
    return """
        SELECT id FROM {table} WHERE {key} IS NULL AND state = 0 AND available_at <= CURRENT_TIMESTAMP(6)
        ORDER BY state, available_at, id LIMIT ?""";
  }

  /** Params: the key to start after. */
  @Override
  public String walkKeyStep() {
    return STEP.replace("{after}", "{key} > ?");
  }

  /** No params. */
  @Override
  public String walkKeyStepFromStart() {
    return STEP.replace("{after}", "{key} >= ''");
  }

  private static final String STEP =
      """
      SELECT {key} AS walk_key, id AS walk_id,
        CASE WHEN available_at <= CURRENT_TIMESTAMP(6) THEN 1 ELSE 0 END AS walk_due
      FROM {table} WHERE {after} AND state + 0 = 0
      ORDER BY {key}, state, id LIMIT 1""";

  /** Params: the ids. */
  @Override
  public String lockFollowers() {
    return """
        SELECT id, attempts, claims, last_error IS NOT NULL AS failed_before, created_at, {columns}, available_at AS due_before_claim FROM {table}
        WHERE id IN ({ids}) AND state = 0 AND available_at <= CURRENT_TIMESTAMP(6) FOR UPDATE""";
  }

  /** Params: leased_by, lease millis, the ids. */
  @Override
  public String lease() {
    return """
        UPDATE {table}
        SET leased_by = ?, attempts = attempts + 1, claims = claims + 1{claimSet},
          available_at = DATEADD(MILLISECOND, CAST(? AS BIGINT), CURRENT_TIMESTAMP(6))
        WHERE id IN ({ids})""";
  }

  /** Params: leased_by, lease millis, the ids. */
  @Override
  public String leaseRun() {
    return """
        UPDATE {table}
        SET leased_by = ?, claims = claims + 1{claimSet},
          available_at = DATEADD(MILLISECOND, CAST(? AS BIGINT), CURRENT_TIMESTAMP(6))
        WHERE id IN ({ids})""";
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
        UPDATE {table} SET state = 1, available_at = CURRENT_TIMESTAMP(6), leased_by = NULL{doneSet}
        WHERE leased_by = ? AND claims = ? AND id IN ({ids})""";
  }

  /** Params: attempts, delay millis, last_error, id, leased_by, claims. */
  @Override
  public String fail() {
    return """
        UPDATE {table}
        SET attempts = ?, available_at = DATEADD(MILLISECOND, CAST(? AS BIGINT), CURRENT_TIMESTAMP(6)),
          leased_by = NULL, last_error = COALESCE(?, last_error)
        WHERE id = ? AND leased_by = ? AND claims = ?""";
  }

  /** Params: attempts, last_error, id, leased_by, claims. */
  @Override
  public String park() {
    return """
        UPDATE {table}
        SET state = 2, attempts = ?, available_at = CURRENT_TIMESTAMP(6), leased_by = NULL,
          last_error = ?
        WHERE id = ? AND leased_by = ? AND claims = ?""";
  }

  /** Params: the attempt to refund (1, or 0 if the claim counted none), id, leased_by, claims. */
  @Override
  public String release() {
    return """
        UPDATE {table}
        SET attempts = attempts - ?, available_at = CURRENT_TIMESTAMP(6), leased_by = NULL
        WHERE id = ? AND leased_by = ? AND claims = ?""";
  }

  /** Params: lease millis, leased_by, the ids. */
  @Override
  public String extend() {
    return """
        UPDATE {table} SET available_at = DATEADD(MILLISECOND, CAST(? AS BIGINT), CURRENT_TIMESTAMP(6))
        WHERE state = 0 AND leased_by = ? AND id IN ({ids})""";
  }

  /** Params: -retention millis, the limit. */
  @Override
  public String cleanup() {
    return """
        DELETE FROM {table} WHERE id IN (
          SELECT id FROM {table}
          WHERE state = 1
            AND available_at < DATEADD(MILLISECOND, CAST(? AS BIGINT), CURRENT_TIMESTAMP(6))
          LIMIT ?)""";
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
           WHERE state = 0 AND available_at <= CURRENT_TIMESTAMP(6)) AS ready,
          (SELECT COUNT(*) FROM {table}
           WHERE state = 0 AND available_at > CURRENT_TIMESTAMP(6) AND leased_by IS NOT NULL)
            AS leased,
          (SELECT COUNT(*) FROM {table} WHERE state = 2) AS parked,
          (SELECT MIN(created_at) FROM {table} WHERE state = 0) AS oldest,
          {blockedKeys} AS blocked_keys,
          {blocked} AS blocked,
          CURRENT_TIMESTAMP(6) AS db_now""";
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
          CASE WHEN leased_by IS NOT NULL AND available_at > CURRENT_TIMESTAMP(6) THEN 1 ELSE 0 END AS leased
        FROM {table} WHERE state = 0 AND attempts > 0 AND last_error IS NOT NULL
        ORDER BY available_at, id LIMIT ?""";
  }

  /** Params: the ref. */
  @Override
  public String replay() {
    return """
        UPDATE {table}
        SET state = 0, attempts = 0, available_at = CURRENT_TIMESTAMP(6), leased_by = NULL
        WHERE state = 2 AND {ref} = ?""";
  }

  @Override
  public String replayAll() {
    return """
        UPDATE {table}
        SET state = 0, attempts = 0, available_at = CURRENT_TIMESTAMP(6), leased_by = NULL
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
          WHERE created_at < DATEADD(MILLISECOND, CAST(? AS BIGINT), CURRENT_TIMESTAMP(6))
          LIMIT ?)""";
  }
}
