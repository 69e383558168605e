-- For a table ordered by key where the claim statement takes heads only (the runs come in a second
-- step): claim that looks for heads among the first {window} due rows only. Params: leased_by,
-- lease millis.
-- Heads only among the first {window} due rows, and of a key's rows there only its oldest (the
-- others have it pending before them); grouped by the key, or by id for rows without one. Params:
-- leased_by, lease millis.
UPDATE {table}
SET leased_by = ?, attempts = attempts + 1, claims = claims + 1{claimSet},
  available_at = {nowPlusMillis}
WHERE id IN (
  SELECT id FROM {table}
  WHERE id IN (
      SELECT MIN(window_id) FROM (
        SELECT id AS window_id, {key} AS window_key FROM {table}
        WHERE state = 0 AND available_at <= {now} ORDER BY available_at, id LIMIT {window})
      GROUP BY CASE WHEN window_key IS NULL THEN window_id END, window_key)
    AND state = 0 AND available_at <= {now}{filter}
  ORDER BY available_at, id LIMIT {limit})
RETURNING id, attempts, claims, last_error IS NOT NULL AS failed_before, created_at, {columns}
