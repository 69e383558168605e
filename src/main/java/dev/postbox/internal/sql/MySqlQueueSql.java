package dev.postbox.internal.sql;

import java.util.List;

/**
 * Every statement Postbox runs on a queue table in MySQL 8 and MariaDB 10.6+ (placeholders: {@link
 * QueueSqlHome}). Times are DATETIME(6) in UTC from {@code UTC_TIMESTAMP(6)}.
 *
 * <p>No {@code UPDATE … RETURNING}, so a claim is a short READ COMMITTED transaction (no gap locks,
 * so it neither deadlocks with nor blocks concurrent INSERTs): an unlocked read of due ids, a
 * locking read of those ids by primary key, an UPDATE by id. A single locking read over the due
 * range would save a step, but InnoDB also locks the first index record past the range, even at
 * READ COMMITTED, and a claimer stalled before its COMMIT would keep the next row to come due from
 * everyone. The statements go as pipelined batches of text ({@link PipelinedClaim}).
 */
final class MySqlQueueSql implements QueueSqlHome {

  @Override
  public Claiming claiming() {
    return Claiming.LOCK_BY_ID_PIPELINED;
  }

  /** SET TRANSACTION applies to the next transaction only: nothing to restore afterwards. */
  @Override
  public List<String> beginClaim() {
    return List.of("SET TRANSACTION ISOLATION LEVEL READ COMMITTED", "START TRANSACTION");
  }

  /** Served by the claim index alone, no filesort (MariaDbClaimPlanTest). Params: the excluded. */
  @Override
  public String candidates() {
    return """
        SELECT id{windowKey} FROM {table}
        WHERE state = 0 AND available_at <= UTC_TIMESTAMP(6){filter}{excluded}
        ORDER BY available_at, id LIMIT {window}""";
  }

  /** Params: the excluded ids, the limit. */
  @Override
  public String probeCandidates() {
    return """
        SELECT id FROM {table}
        WHERE state = 0 AND available_at <= UTC_TIMESTAMP(6){filter}{excluded}
        ORDER BY id DESC LIMIT ?""";
  }

  /**
   * No ORDER BY: the primary key range returns them in id order anyway. Params: the ids, the limit.
   */
  @Override
  public String lockCandidates() {
    return """
        SELECT id, attempts, claims, last_error IS NOT NULL AS failed_before, created_at, {columns}, available_at AS due_before_claim FROM {table} FORCE INDEX (PRIMARY)
        WHERE id IN ({ids}) AND state = 0 AND available_at <= UTC_TIMESTAMP(6){filter}
        LIMIT ? FOR UPDATE SKIP LOCKED""";
  }

  /** Params: the ids, the limit. */
  @Override
  public String lockProbeCandidates() {
    return """
        SELECT id, attempts, claims, last_error IS NOT NULL AS failed_before, created_at, {columns}, available_at AS due_before_claim FROM {table} FORCE INDEX (PRIMARY)
        WHERE id IN ({ids}) AND state = 0 AND available_at <= UTC_TIMESTAMP(6){filter}
        ORDER BY id DESC LIMIT ? FOR UPDATE SKIP LOCKED""";
  }

  /** Served by the key index (msg_key, state, id). Params: the key, the head's id, how many. */
  @Override
  public String followers() {
    return """
        SELECT * FROM (
          SELECT id, {key} AS run_key, CASE WHEN available_at <= UTC_TIMESTAMP(6) THEN 1 ELSE 0 END AS ready
          FROM {table} WHERE {key} = ? AND state = 0 AND id > ? ORDER BY id LIMIT ?) AS run{n}""";
  }

  // The walk over keys (KeyWalk): a loose index scan of the key index ("Using index for group-by"
  // in EXPLAIN: one probe per key, however many rows a key has), joined by primary key to tell
  // whether each key's oldest pending row is due. A recursive CTE stepping from key to key
  // scanned the index from its start on every step in MariaDB 10.11.

  /** Params: how many. */
  @Override
  public String unkeyedDue() {
    return """
        SELECT id FROM {table} WHERE {key} IS NULL AND state = 0 AND available_at <= UTC_TIMESTAMP(6)
        ORDER BY available_at, id LIMIT ?""";
  }

  /** Params: the key to start after ({@code {after}}), how many keys. */
  @Override
  public String walkKeys() {
    return WALK;
  }

  private static final String WALK =
      """
      SELECT walk$keys.walk_key, walk$keys.walk_id,
        CASE WHEN walk$row.available_at <= UTC_TIMESTAMP(6) THEN 1 ELSE 0 END AS walk_due
      FROM (
        SELECT {key} AS walk_key, MIN(id) AS walk_id FROM {table}
        WHERE {after}{key} IS NOT NULL AND state = 0 GROUP BY {key} ORDER BY {key} LIMIT ?) walk$keys
      JOIN {table} walk$row ON walk$row.id = walk$keys.walk_id
      ORDER BY walk$keys.walk_key""";

  /** Params: the ids. */
  @Override
  public String lockFollowers() {
    return """
        SELECT id, attempts, claims, last_error IS NOT NULL AS failed_before, created_at, {columns}, available_at AS due_before_claim FROM {table} FORCE INDEX (PRIMARY)
        WHERE id IN ({ids}) AND state = 0 AND available_at <= UTC_TIMESTAMP(6) FOR UPDATE""";
  }

  /** MySQL assigns left to right: {claimSet} sees the columns as set before it. */
  @Override
  public String lease() {
    return """
        UPDATE {table}
        SET leased_by = ?, attempts = attempts + 1, claims = claims + 1{claimSet},
          available_at = TIMESTAMPADD(MICROSECOND, ? * 1000, UTC_TIMESTAMP(6))
        WHERE id IN ({ids})""";
  }

  /** Params: leased_by, lease millis, the ids. */
  @Override
  public String leaseRun() {
    return """
        UPDATE {table}
        SET leased_by = ?, claims = claims + 1{claimSet},
          available_at = TIMESTAMPADD(MICROSECOND, ? * 1000, UTC_TIMESTAMP(6))
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
        UPDATE {table} SET state = 1, available_at = UTC_TIMESTAMP(6), leased_by = NULL{doneSet}
        WHERE leased_by = ? AND claims = ? AND id IN ({ids})""";
  }

  /** Params: attempts, delay millis, last_error, id, leased_by, claims. */
  @Override
  public String fail() {
    return """
        UPDATE {table}
        SET attempts = ?, available_at = TIMESTAMPADD(MICROSECOND, ? * 1000, UTC_TIMESTAMP(6)),
          leased_by = NULL, last_error = COALESCE(?, last_error)
        WHERE id = ? AND leased_by = ? AND claims = ?""";
  }

  /** Params: attempts, last_error, id, leased_by, claims. */
  @Override
  public String park() {
    return """
        UPDATE {table}
        SET state = 2, attempts = ?, available_at = UTC_TIMESTAMP(6), leased_by = NULL,
          last_error = ?
        WHERE id = ? AND leased_by = ? AND claims = ?""";
  }

  /** Params: the attempt to refund (1, or 0 if the claim counted none), id, leased_by, claims. */
  @Override
  public String release() {
    return """
        UPDATE {table}
        SET attempts = attempts - ?, available_at = UTC_TIMESTAMP(6), leased_by = NULL
        WHERE id = ? AND leased_by = ? AND claims = ?""";
  }

  /** Params: lease millis, leased_by, the ids. */
  @Override
  public String extend() {
    return """
        UPDATE {table} SET available_at = TIMESTAMPADD(MICROSECOND, ? * 1000, UTC_TIMESTAMP(6))
        WHERE state = 0 AND leased_by = ? AND id IN ({ids})""";
  }

  /**
   * MySQL forbids a subquery on the table a DELETE deletes from; DELETE … LIMIT is its own form.
   * Params: -retention millis, the limit.
   */
  @Override
  public String cleanup() {
    return """
        DELETE FROM {table}
        WHERE state = 1 AND available_at < TIMESTAMPADD(MICROSECOND, ? * 1000, UTC_TIMESTAMP(6))
        LIMIT ?""";
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
           WHERE state = 0 AND available_at <= UTC_TIMESTAMP(6)) AS ready,
          (SELECT COUNT(*) FROM {table}
           WHERE state = 0 AND available_at > UTC_TIMESTAMP(6) AND leased_by IS NOT NULL) AS leased,
          (SELECT COUNT(*) FROM {table} WHERE state = 2) AS parked,
          (SELECT MIN(created_at) FROM {table} WHERE state = 0) AS oldest,
          {blockedKeys} AS blocked_keys,
          {blocked} AS blocked,
          UTC_TIMESTAMP(6) AS db_now""";
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
          CASE WHEN leased_by IS NOT NULL AND available_at > UTC_TIMESTAMP(6) THEN 1 ELSE 0 END AS leased
        FROM {table} WHERE state = 0 AND attempts > 0 AND last_error IS NOT NULL
        ORDER BY available_at, id LIMIT ?""";
  }

  /** Params: the ref. */
  @Override
  public String replay() {
    return """
        UPDATE {table} SET state = 0, attempts = 0, available_at = UTC_TIMESTAMP(6), leased_by = NULL
        WHERE state = 2 AND {ref} = ?""";
  }

  @Override
  public String replayAll() {
    return """
        UPDATE {table} SET state = 0, attempts = 0, available_at = UTC_TIMESTAMP(6), leased_by = NULL
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
        DELETE FROM {table}
        WHERE created_at < TIMESTAMPADD(MICROSECOND, ? * 1000, UTC_TIMESTAMP(6)) LIMIT ?""";
  }
}
