-- Locks every stripe of the table, in stripe order (every stripe comes before every key in the
-- one order), for an add of too many distinct keys to lock one by one. No params.
SELECT pg_advisory_xact_lock({seed}, s) FROM generate_series(0, {lastStripe}) AS postbox$stripes(s) ORDER BY s
