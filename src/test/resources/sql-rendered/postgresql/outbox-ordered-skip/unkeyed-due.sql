-- params: how many
SELECT id FROM postbox_outbox WHERE msg_key IS NULL AND state = 0 AND available_at <= statement_timestamp()
ORDER BY available_at, id LIMIT ?
