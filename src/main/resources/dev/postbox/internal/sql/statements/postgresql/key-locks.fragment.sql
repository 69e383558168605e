-- Locks the keys of a text array in the order of their hashes, after the stripe lock of
-- postbox$stripe (its one-time filter runs before any row). The keys' locks are taken after the
-- sort: PostgreSQL computes volatile functions of the select list after ORDER BY. Params: the
-- keys as a text array.
SELECT pg_advisory_xact_lock(h) FROM (SELECT DISTINCT hashtextextended(k, {seed}) AS h FROM unnest(CAST(? AS TEXT[])) AS postbox$keys(k)) AS postbox$hashes WHERE (SELECT COUNT(*) FROM postbox$stripe) = 1 ORDER BY h
