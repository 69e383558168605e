-- A job's id by its dedupe key: a job not started yet holds its key in dedupe_key, a started one
-- in running_key; there is at most one of each. Params: the key, the key.
SELECT id, dedupe_key FROM {table} WHERE dedupe_key = ? OR running_key = ?
