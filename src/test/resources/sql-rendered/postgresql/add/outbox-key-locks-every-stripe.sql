-- params: none
SELECT pg_advisory_xact_lock(220047697, s) FROM generate_series(0, 63) AS postbox$stripes(s) ORDER BY s
