-- params: how many
SELECT id FROM postbox_outbox WHERE msg_key IS NULL AND state = 0 AND available_at <= CURRENT_TIMESTAMP(6)
ORDER BY state, available_at, id LIMIT ?
