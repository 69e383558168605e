-- Cancels the jobs not started that hold a dedupe key (see job-cancel). Params: the key, the key.
DELETE FROM {table} WHERE (dedupe_key = ? OR running_key = ?) AND state IN (0, 2, 3, 5) AND leased_by IS NULL
