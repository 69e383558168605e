-- Sent before every claim, in the same round trip and the same transaction (the driver sends both
-- before one Sync; in auto-commit they commit together): the claim that follows is planned for
-- index scans only. A queue table's statistics go wrong in ordinary operation: after a long
-- transaction held the vacuum horizon, the table is thousands of pages holding a handful of live
-- rows, and ANALYZE says just that; the planner then read every page on each claim (a sequential
-- scan of 14,605 pages where the claim index reads 14) and checked key order by a bitmap scan of the
-- primary key that read every row before the head, dead ones included (they cannot be marked dead
-- in the index by a bitmap scan). The settings end with the transaction. Its one row is skipped.
-- No params.
SELECT set_config('enable_seqscan', 'off', true), set_config('enable_bitmapscan', 'off', true);
