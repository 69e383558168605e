-- The runs of a schedule not finished, newest first: a tick is not enqueued while one is.
-- Params: the name.
SELECT id, tick_at FROM {table} WHERE state = 0 AND name = ? AND tick_at IS NOT NULL ORDER BY id DESC
