-- For a table ordered by key: a walk over the keys in key order, returning up to ? rows of
-- walk_key, walk_id, the id of the key's oldest pending row, and walk_due, 1 if that row is due;
-- read without locks. Where its first key is looked for, {after} stands before the rest of the
-- condition: <key> > ? AND to start after a key, nothing to start from the first. Params: the key
-- to start after (if any), how many keys.
-- Params: the key to start after ({after}), how many keys.
WITH RECURSIVE walk$keys (walk_key, walk_id, walk_at, walk_n) AS (
  (SELECT {key}, id, available_at, 1 FROM {table}
   WHERE {after}{key} IS NOT NULL AND state = 0 ORDER BY {key}, id LIMIT 1)
  UNION ALL
  SELECT walk$next.k, walk$next.id, walk$next.available_at, walk$keys.walk_n + 1
  FROM walk$keys CROSS JOIN LATERAL (
    SELECT {key} AS k, id, available_at FROM {table}
    WHERE {key} > walk$keys.walk_key AND state = 0 ORDER BY {key}, id LIMIT 1) walk$next
  WHERE walk$keys.walk_n < ?)
SELECT walk_key, walk_id, CASE WHEN walk_at <= {now} THEN 1 ELSE 0 END
  AS walk_due
FROM walk$keys
