-- An add ({insert}: insert, insert-skipping or insert-locking) that also notifies {channel}: one
-- round trip; NOTIFY is delivered at commit, never for a rolled-back transaction, and PostgreSQL
-- folds identical notifications of one transaction into one. Returns the rows added as a count.
-- Params: those of {insert}.
WITH added AS ({insert} RETURNING 1) SELECT COUNT(*), pg_notify('{channel}', '') FROM added
