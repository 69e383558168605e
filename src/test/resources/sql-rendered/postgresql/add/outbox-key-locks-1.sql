-- params: the key
WITH postbox$stripe AS MATERIALIZED (SELECT pg_advisory_xact_lock_shared(220047697, pg_backend_pid() % 64)) SELECT pg_advisory_xact_lock(hashtextextended(CAST(? AS TEXT), 220047697)) WHERE (SELECT COUNT(*) FROM postbox$stripe) = 1
