-- Cancels a job not started: pending, waiting on its delay, a retry's backoff or its admission
-- (states 3 and 5), or parked; a running job has a lease (leased_by) until its outcome is written,
-- and is never cancelled.
-- Params: the id.
DELETE FROM {table} WHERE id = ? AND state IN (0, 2, 3, 5) AND leased_by IS NULL
