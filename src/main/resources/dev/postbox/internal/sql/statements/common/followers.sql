-- For a table ordered by key where a claim adds the runs in a second step: one branch {n} of a
-- UNION ALL that reads, without locks, the ids of the next pending rows of a key behind its head,
-- oldest first, each with run_key and ready (1 if due). Params: the key, the head's id, how many.
SELECT * FROM (
  SELECT id, {key} AS run_key, CASE WHEN available_at <= {now} THEN 1 ELSE 0 END AS ready
  FROM {table} WHERE {key} = ? AND state = 0 AND id > ? ORDER BY id LIMIT ?) AS run{n}
