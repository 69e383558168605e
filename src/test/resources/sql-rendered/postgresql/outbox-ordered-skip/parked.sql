-- params: the limit
SELECT id, event_id AS ref, topic AS topic, attempts, last_error, created_at
FROM postbox_outbox WHERE state = 2 ORDER BY id LIMIT ?
