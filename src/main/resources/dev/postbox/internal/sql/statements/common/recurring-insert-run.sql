-- Enqueues a tick's run, created at the now the step read, so that a run's creation and the next
-- tick computed from that now agree to the microsecond.
-- Params: name, payload, max attempts, the step's now (due), the step's now (created), tick.
INSERT INTO {table} (name, payload, max_attempts, available_at, created_at, tick_at) VALUES (?, ?, ?, ?, ?, ?)
