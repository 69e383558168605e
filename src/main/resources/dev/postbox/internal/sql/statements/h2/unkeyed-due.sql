-- For a table ordered by key: the ids of up to ? due rows without a key, oldest due first (which
-- the walk over keys does not see). Params: how many.
-- The walk over keys (KeyWalk) goes one key per statement, in process: H2 2.5 runs a recursive
-- CTE's correlated step as a scan and sort of every row past the key (200 ms for 10 keys over
-- 50,000 rows), while one step with its key bound is a probe of the key index (~70 µs). The "state
-- + 0" keeps H2 from the claim index (state = 0), from which it sorted every pending row.
-- Params: how many.
SELECT id FROM {table} WHERE {key} IS NULL AND state = 0 AND available_at <= {now}
ORDER BY state, available_at, id LIMIT ?
