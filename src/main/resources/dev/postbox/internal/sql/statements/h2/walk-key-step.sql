-- Where one statement per key is cheaper than walkKeys: the first key after ? as one row of
-- walk_key, walk_id and walk_due. Params: the key to start after.
-- Params: the key to start after.
SELECT {key} AS walk_key, id AS walk_id,
  CASE WHEN available_at <= {now} THEN 1 ELSE 0 END AS walk_due
FROM {table} WHERE {key} > ? AND state + 0 = 0
ORDER BY {key}, state, id LIMIT 1
