-- Cancels a job not started: pending, waiting on its delay or a retry's backoff, or parked; a
-- running job has a lease (leased_by) until its outcome is written, and is never cancelled.
-- Params: the id.
DELETE FROM {table} WHERE id = ? AND state IN (0, 2) AND leased_by IS NULL
