-- params: topic, key, error text, after id, page size
SELECT id, id AS ref, name AS topic, COALESCE(running_key, dedupe_key) AS listed_key, attempts, last_error,
  available_at, created_at, SUBSTR(payload, 1, 4097) AS payload
FROM postbox_jobs WHERE state = 2 AND name = ? AND COALESCE(running_key, dedupe_key) = ? AND INSTR(last_error, ?) > 0 AND id > ? ORDER BY id LIMIT ?
