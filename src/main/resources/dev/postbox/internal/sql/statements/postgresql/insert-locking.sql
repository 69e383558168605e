-- An add of rows with keys, on an outbox ordered by key, that first locks its keys: the lock and
-- the add in one round trip. {keyLocks}: key-lock or key-locks, which lock one key or a text array
-- of them; {onConflict}: nothing, or on-conflict to skip duplicates. The one-time filter runs the
-- locks before any row is made, so before any id is drawn. Params: the key (or the keys as a text
-- array, sorted), then per row the outbox's columns.
WITH {_key-stripe}, postbox$locks AS MATERIALIZED ({keyLocks}) INSERT INTO {table} ({columns}) SELECT * FROM (VALUES {values}) AS postbox$values WHERE (SELECT COUNT(*) FROM postbox$locks) >= 0{onConflict}
