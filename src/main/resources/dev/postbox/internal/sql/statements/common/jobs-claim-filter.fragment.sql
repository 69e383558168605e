-- The job table's claim condition ({filter}): a job whose dedupe key a started job holds (in its
-- running_key) waits until that one ends.
 AND (dedupe_key IS NULL OR NOT EXISTS (SELECT 1 FROM {table} running_job WHERE running_job.running_key = {table}.dedupe_key))
