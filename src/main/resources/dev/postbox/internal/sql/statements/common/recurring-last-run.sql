-- The state of a schedule's last run on the job table {table}, and when it is due or ended.
-- Params: a job id.
SELECT state, available_at FROM {table} WHERE id = ?
