-- params: topic, key, error pattern, the limit
SELECT id FROM postbox_outbox WHERE state = 2 AND topic = ? AND msg_key = ? AND last_error LIKE ? ESCAPE '!' ORDER BY id LIMIT ?
