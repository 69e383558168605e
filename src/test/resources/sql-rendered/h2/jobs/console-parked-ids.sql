-- params: topic, key, error pattern, the limit
SELECT id FROM postbox_jobs WHERE state = 2 AND name = ? AND COALESCE(running_key, dedupe_key) = ? AND last_error LIKE ? ESCAPE '!' ORDER BY id LIMIT ?
