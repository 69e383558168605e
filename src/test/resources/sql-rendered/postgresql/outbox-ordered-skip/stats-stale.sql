-- params: none
SELECT c.reltuples < 0 OR COALESCE(s.n_live_tup, 0) > 10 * GREATEST(c.reltuples, 1000) AS stale
FROM pg_class c LEFT JOIN pg_stat_user_tables s ON s.relid = c.oid
WHERE c.oid = CAST('postbox_outbox' AS regclass)
