-- Locks one key (a 64-bit hash of table and key) until the transaction ends, after the stripe lock
-- of postbox$stripe. Params: the key.
SELECT pg_advisory_xact_lock(hashtextextended(CAST(? AS TEXT), {seed})) WHERE (SELECT COUNT(*) FROM postbox$stripe) = 1
