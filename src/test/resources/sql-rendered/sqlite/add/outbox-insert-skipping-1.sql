-- params: per row: event_id, topic, msg_key, payload, headers
INSERT INTO postbox_outbox (event_id, topic, msg_key, payload, headers, available_at, created_at) VALUES (?, ?, ?, ?, ?, CAST((julianday('now') - 2440587.5) * 86400000.0 + 0.5 AS INTEGER), CAST((julianday('now') - 2440587.5) * 86400000.0 + 0.5 AS INTEGER)) ON CONFLICT (event_id) DO NOTHING
