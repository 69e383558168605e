-- params: topic, key, error text, the limit
SELECT id FROM postbox_outbox WHERE state = 2 AND topic = ? AND msg_key = ? AND strpos(last_error, ?) > 0 ORDER BY id LIMIT ?
