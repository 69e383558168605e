-- A shared lock on one of the table's {stripes} stripes (this backend's), taken before any key's
-- lock: an add of too many keys to lock one by one locks every stripe instead (lock-every-stripe).
postbox$stripe AS MATERIALIZED (SELECT pg_advisory_xact_lock_shared({seed}, pg_backend_pid() % {stripes}))
