-- params: the 2 excluded ids, the limit
SELECT id FROM postbox_outbox
WHERE state = 0 AND available_at <= CURRENT_TIMESTAMP(6) AND attempts = 0 AND id NOT IN (?, ?)
ORDER BY available_at, id LIMIT ?
