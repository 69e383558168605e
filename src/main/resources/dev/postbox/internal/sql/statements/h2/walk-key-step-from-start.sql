-- walkKeyStep for the first key. No params.
-- No params.
SELECT {key} AS walk_key, id AS walk_id,
  CASE WHEN available_at <= {now} THEN 1 ELSE 0 END AS walk_due
FROM {table} WHERE {key} >= '' AND state + 0 = 0
ORDER BY {key}, state, id LIMIT 1
