package dev.postbox.internal.sql;

import java.util.List;

/**
 * Every statement Postbox runs on a queue table in SQLite (placeholders: {@link QueueSqlHome}).
 * Times are INTEGER milliseconds since the epoch from SQLite's own clock, written {@code {now}}
 * below. One writer per file: a claim takes the write lock up front with {@code BEGIN IMMEDIATE} (a
 * deferred transaction that upgrades gets SQLITE_BUSY without waiting for the busy timeout).
 */
final class SqliteQueueSql implements QueueSqlHome {
  // to the nearest millisecond: + 0.5 and a truncating CAST is what ROUND(x) computes for x > 0,
  // without the function call that made preparing an add's INSERT (done on every add) ~7% slower
  static final String NOW = "CAST((julianday('now') - 2440587.5) * 86400000.0 + 0.5 AS INTEGER)";

  private static String sql(String template) {
    return template.replace("{now}", NOW);
  }

  @Override
  public Claiming claiming() {
    return Claiming.WRITE_LOCKED_TRANSACTION;
  }

  @Override
  public List<String> beginClaim() {
    return List.of("BEGIN IMMEDIATE");
  }

  /** Params: leased_by, lease millis. */
  @Override
  public String claim() {
    return sql(
        """
        UPDATE {table}
        SET leased_by = ?, attempts = attempts + 1, claims = claims + 1{claimSet},
          available_at = ({now} + ?)
        WHERE id IN (
          SELECT id FROM {table} WHERE state = 0 AND available_at <= {now}{filter}
          ORDER BY available_at, id LIMIT {limit})
        RETURNING id, attempts, claims, last_error IS NOT NULL AS failed_before, created_at, {columns}""");
  }

  /**
   * Heads only among the first {window} due rows, and of a key's rows there only its oldest (the
   * others have it pending before them); grouped by the key, or by id for rows without one. Params:
   * leased_by, lease millis.
   */
  @Override
  public String claimHeads() {
    return sql(
        """
        UPDATE {table}
        SET leased_by = ?, attempts = attempts + 1, claims = claims + 1{claimSet},
          available_at = ({now} + ?)
        WHERE id IN (
          SELECT id FROM {table}
          WHERE id IN (
              SELECT MIN(window_id) FROM (
                SELECT id AS window_id, {key} AS window_key FROM {table}
                WHERE state = 0 AND available_at <= {now} ORDER BY available_at, id LIMIT {window})
              GROUP BY CASE WHEN window_key IS NULL THEN window_id END, window_key)
            AND state = 0 AND available_at <= {now}{filter}
          ORDER BY available_at, id LIMIT {limit})
        RETURNING id, attempts, claims, last_error IS NOT NULL AS failed_before, created_at, {columns}""");
  }

  /** Served by the claim index alone. No params. */
  @Override
  public String windowRows() {
    return sql(
        """
        SELECT COUNT(*) FROM (
          SELECT 1 FROM {table} WHERE state = 0 AND available_at <= {now} LIMIT {window})""");
  }

  /** Params: leased_by, lease millis, the ids. */
  @Override
  public String leaseHeads() {
    return sql(
        """
        UPDATE {table}
        SET leased_by = ?, attempts = attempts + 1, claims = claims + 1{claimSet},
          available_at = ({now} + ?)
        WHERE id IN (
          SELECT id FROM {table} WHERE id IN ({ids}) AND state = 0 AND available_at <= {now}{filter}
          ORDER BY available_at, id LIMIT ?)
        RETURNING id, attempts, claims, last_error IS NOT NULL AS failed_before, created_at, {columns}""");
  }

  /** Params: leased_by, lease millis, the excluded ids, the limit. */
  @Override
  public String probe() {
    return sql(
        """
        UPDATE {table}
        SET leased_by = ?, attempts = attempts + 1, claims = claims + 1{claimSet},
          available_at = ({now} + ?)
        WHERE id IN (
          SELECT id FROM {table} WHERE state = 0 AND available_at <= {now}{filter}{excluded}
          ORDER BY id DESC LIMIT ?)
        RETURNING id, attempts, claims, last_error IS NOT NULL AS failed_before, created_at, {columns}""");
  }

  /** Params: the key, the head's id, how many. */
  @Override
  public String followers() {
    return sql(
        """
        SELECT * FROM (
          SELECT id, {key} AS run_key, CASE WHEN available_at <= {now} THEN 1 ELSE 0 END AS ready
          FROM {table} WHERE {key} = ? AND state = 0 AND id > ? ORDER BY id LIMIT ?) AS run{n}""");
  }

  // The walk over keys (KeyWalk): each recursive step is one probe of the key index for the next
  // key, however many rows a key has; then one probe for the key's oldest pending row.

  /** Params: how many. */
  @Override
  public String unkeyedDue() {
    return sql(
        """
        SELECT id FROM {table} WHERE {key} IS NULL AND state = 0 AND available_at <= {now}
        ORDER BY available_at, id LIMIT ?""");
  }

  /** Params: the key to start after ({@code {after}}), how many keys. */
  @Override
  public String walkKeys() {
    return WALK;
  }

  private static final String WALK =
      sql(
          """
      WITH RECURSIVE walk$keys (walk_key, walk_n) AS (
        SELECT (SELECT {key} FROM {table} WHERE {after}{key} IS NOT NULL AND state = 0
          ORDER BY {key} LIMIT 1), 1
        UNION ALL
        SELECT (SELECT {key} FROM {table} WHERE {key} > walk$keys.walk_key AND state = 0
          ORDER BY {key} LIMIT 1), walk$keys.walk_n + 1
        FROM walk$keys WHERE walk$keys.walk_key IS NOT NULL AND walk$keys.walk_n < ?)
      SELECT walk$keys.walk_key, walk$row.id AS walk_id,
        CASE WHEN walk$row.available_at <= {now} THEN 1 ELSE 0 END AS walk_due
      FROM walk$keys JOIN {table} walk$row ON walk$row.id = (
        SELECT id FROM {table} WHERE {key} = walk$keys.walk_key AND state = 0 ORDER BY id LIMIT 1)
      ORDER BY walk$keys.walk_n""");

  /**
   * Under the claim's write lock the followers read are still due. No attempt is counted: one
   * counts once a row is handed to the transport (with its outcome). Params: leased_by, lease
   * millis, the ids.
   */
  @Override
  public String leaseFollowers() {
    return sql(
        """
        UPDATE {table}
        SET leased_by = ?, claims = claims + 1{claimSet},
          available_at = ({now} + ?)
        WHERE id IN ({ids})
        RETURNING id, attempts, claims, last_error IS NOT NULL AS failed_before, created_at, {columns}""");
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
    return sql(
        """
        UPDATE {table} SET state = 1, available_at = {now}, leased_by = NULL{doneSet}
        WHERE leased_by = ? AND claims = ? AND id IN ({ids})""");
  }

  /** Params: attempts, delay millis, last_error, id, leased_by, claims. */
  @Override
  public String fail() {
    return sql(
        """
        UPDATE {table} SET attempts = ?, available_at = ({now} + ?), leased_by = NULL, last_error = COALESCE(?, last_error)
        WHERE id = ? AND leased_by = ? AND claims = ?""");
  }

  /** Params: attempts, last_error, id, leased_by, claims. */
  @Override
  public String park() {
    return sql(
        """
        UPDATE {table}
        SET state = 2, attempts = ?, available_at = {now}, leased_by = NULL, last_error = ?
        WHERE id = ? AND leased_by = ? AND claims = ?""");
  }

  /** Params: the attempt to refund (1, or 0 if the claim counted none), id, leased_by, claims. */
  @Override
  public String release() {
    return sql(
        """
        UPDATE {table} SET attempts = attempts - ?, available_at = {now}, leased_by = NULL
        WHERE id = ? AND leased_by = ? AND claims = ?""");
  }

  // UPDATE … RETURNING returns the values as updated: a hand-back is due at once, behind the rows
  // due before it (one claim at a time on SQLite, so only rows of the last claim can move)
  @Override
  public boolean claimReturnsDue() {
    return false;
  }

  /** Params: lease millis, leased_by, the ids. */
  @Override
  public String extend() {
    return sql(
        """
        UPDATE {table} SET available_at = ({now} + ?)
        WHERE state = 0 AND leased_by = ? AND id IN ({ids})""");
  }

  /** Params: -retention millis, the limit. */
  @Override
  public String cleanup() {
    return sql(
        """
        DELETE FROM {table} WHERE id IN (
          SELECT id FROM {table} WHERE state = 1 AND available_at < ({now} + ?) LIMIT ?)""");
  }

  @Override
  public String countPending() {
    return "SELECT COUNT(*) FROM {table} WHERE state = 0";
  }

  @Override
  public String stats() {
    return sql(
        """
        SELECT
          (SELECT COUNT(*) FROM {table} WHERE state = 0) AS pending,
          (SELECT COUNT(*) FROM {table}
           WHERE state = 0 AND available_at <= {now}) AS ready,
          (SELECT COUNT(*) FROM {table}
           WHERE state = 0 AND available_at > {now} AND leased_by IS NOT NULL) AS leased,
          (SELECT COUNT(*) FROM {table} WHERE state = 2) AS parked,
          (SELECT MIN(created_at) FROM {table} WHERE state = 0) AS oldest,
          {blockedKeys} AS blocked_keys,
          {blocked} AS blocked,
          {now} AS db_now""");
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
    return sql(
        """
        SELECT id, {ref} AS ref, {topic} AS topic, {listedKey} AS listed_key, attempts, last_error,
          available_at, created_at,
          CASE WHEN leased_by IS NOT NULL AND available_at > {now} THEN 1 ELSE 0 END AS leased
        FROM {table} WHERE state = 0 AND attempts > 0 AND last_error IS NOT NULL
        ORDER BY available_at, id LIMIT ?""");
  }

  /** Params: the ref. */
  @Override
  public String replay() {
    return sql(
        """
        UPDATE {table} SET state = 0, attempts = 0, available_at = {now}, leased_by = NULL
        WHERE state = 2 AND {ref} = ?""");
  }

  @Override
  public String replayAll() {
    return sql(
        """
        UPDATE {table} SET state = 0, attempts = 0, available_at = {now}, leased_by = NULL
        WHERE state = 2""");
  }

  /** Params: the ref. */
  @Override
  public String discard() {
    return "DELETE FROM {table} WHERE state = 2 AND {ref} = ?";
  }

  /** Params: -retention millis, the limit. */
  @Override
  public String inboxCleanup() {
    return sql(
        """
        DELETE FROM {table} WHERE (consumer, event_id) IN (
          SELECT consumer, event_id FROM {table} WHERE created_at < ({now} + ?) LIMIT ?)""");
  }
}
