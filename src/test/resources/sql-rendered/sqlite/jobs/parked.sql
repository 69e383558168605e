-- params: the limit
SELECT id, id AS ref, name AS topic, attempts, last_error, created_at
FROM postbox_jobs WHERE state = 2 ORDER BY id LIMIT ?
