-- For a table ordered by key: a walk over the keys in key order, returning up to ? rows of
-- walk_key, walk_id, the id of the key's oldest pending row, and walk_due, 1 if that row is due;
-- read without locks. Where its first key is looked for, {after} stands before the rest of the
-- condition: <key> > ? AND to start after a key, nothing to start from the first. Params: the key
-- to start after (if any), how many keys.
-- Params: the key to start after ({after}), how many keys.
SELECT walk$keys.walk_key, walk$keys.walk_id,
  CASE WHEN walk$row.available_at <= {now} THEN 1 ELSE 0 END AS walk_due
FROM (
  SELECT {key} AS walk_key, MIN(id) AS walk_id FROM {table}
  WHERE {after}{key} IS NOT NULL AND state = 0 GROUP BY {key} ORDER BY {key} LIMIT ?) walk$keys
JOIN {table} walk$row ON walk$row.id = walk$keys.walk_id
ORDER BY walk$keys.walk_key
