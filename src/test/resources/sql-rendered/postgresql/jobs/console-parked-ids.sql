-- params: topic, key, error text, the limit
SELECT id FROM postbox_jobs WHERE state = 2 AND name = ? AND COALESCE(running_key, dedupe_key) = ? AND strpos(last_error, ?) > 0 ORDER BY id LIMIT ?
