-- params: how many
SELECT id FROM postbox_outbox WHERE msg_key IS NULL AND state = 0 AND available_at <= CAST((julianday('now') - 2440587.5) * 86400000.0 + 0.5 AS INTEGER)
ORDER BY available_at, id LIMIT ?
