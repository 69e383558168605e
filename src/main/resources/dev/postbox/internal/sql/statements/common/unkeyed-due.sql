-- For a table ordered by key: the ids of up to ? due rows without a key, oldest due first (which
-- the walk over keys does not see). Params: how many.
-- postgresql: The walk visits keys in the key index's order, one index probe per key (a loose index
-- scan: the recursive step jumps past all rows of the key it is on), and returns each key's oldest
-- pending row. Only a candidate: the claim checks it is due and the head of its key.
-- mysql: The walk over keys (KeyWalk): a loose index scan of the key index ("Using index for
-- group-by" in EXPLAIN: one probe per key, however many rows a key has), joined by primary key to
-- tell whether each key's oldest pending row is due. A recursive CTE stepping from key to key
-- scanned the index from its start on every step in MariaDB 10.11.
-- sqlite: The walk over keys (KeyWalk): each recursive step is one probe of the key index for the
-- next key, however many rows a key has; then one probe for the key's oldest pending row.
SELECT id FROM {table} WHERE {key} IS NULL AND state = 0 AND available_at <= {now}
ORDER BY available_at, id LIMIT ?
