-- Begins a recurring step's transaction holding SQLite's one write lock from its start (ended by
-- COMMIT or ROLLBACK): a deferred transaction that upgrades gets SQLITE_BUSY at once.
BEGIN IMMEDIATE
