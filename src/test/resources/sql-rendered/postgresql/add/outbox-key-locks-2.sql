-- params: the 2 keys as a text array, sorted
WITH postbox$stripe AS MATERIALIZED (SELECT pg_advisory_xact_lock_shared(220047697, pg_backend_pid() % 64)) SELECT pg_advisory_xact_lock(h) FROM (SELECT DISTINCT hashtextextended(k, 220047697) AS h FROM unnest(CAST(? AS TEXT[])) AS postbox$keys(k)) AS postbox$hashes WHERE (SELECT COUNT(*) FROM postbox$stripe) = 1 ORDER BY h
