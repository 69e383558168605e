-- The database's clock now: recurring ticks are computed from it, never from the JVM's.
-- Params: none.
SELECT {now} AS db_now
