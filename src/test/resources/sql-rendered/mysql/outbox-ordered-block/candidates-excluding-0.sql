-- params: none
SELECT id, msg_key AS claim_key FROM postbox_outbox
WHERE state = 0 AND available_at <= UTC_TIMESTAMP(6)
ORDER BY available_at, id LIMIT 1000
