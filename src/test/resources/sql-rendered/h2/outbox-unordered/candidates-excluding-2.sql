-- params: the 2 excluded ids
SELECT id FROM postbox_outbox
WHERE state = 0 AND available_at <= CURRENT_TIMESTAMP(6) AND id NOT IN (?, ?)
ORDER BY state, available_at, id LIMIT 1000
