-- params: the limit
SELECT id FROM postbox_outbox
WHERE state = 0 AND available_at <= CURRENT_TIMESTAMP(6)
ORDER BY id DESC LIMIT ?
