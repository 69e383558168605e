-- Whether the planner's statistics of the table are missing or far behind its rows: it was never
-- analysed (reltuples < 0), or it holds ten times as many live rows as the last ANALYZE counted (a
-- bulk load). Without them a claim's window scans every due row and sorts them (measured: a first
-- claim of 671 ms instead of 12 on 1,000,000 rows). No params.
SELECT c.reltuples < 0 OR COALESCE(s.n_live_tup, 0) > 10 * GREATEST(c.reltuples, 1000) AS stale
FROM pg_class c LEFT JOIN pg_stat_user_tables s ON s.relid = c.oid
WHERE c.oid = CAST('{table}' AS regclass)
