-- Up to ? parked rows, oldest first. Params: the limit.
SELECT id, {ref} AS ref, {topic} AS topic, attempts, last_error, created_at
FROM {table} WHERE state = 2 ORDER BY id LIMIT ?
