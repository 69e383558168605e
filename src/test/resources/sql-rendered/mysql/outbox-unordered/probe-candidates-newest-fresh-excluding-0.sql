-- params: the limit
SELECT id FROM postbox_outbox
WHERE state = 0 AND available_at <= UTC_TIMESTAMP(6) AND attempts = 0
ORDER BY id DESC LIMIT ?
