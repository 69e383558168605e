-- params: per row: event_id, topic, msg_key, payload, headers
INSERT INTO postbox_outbox (event_id, topic, msg_key, payload, headers, available_at, created_at) VALUES (?, ?, ?, ?, ?, CURRENT_TIMESTAMP(6), CURRENT_TIMESTAMP(6)), (?, ?, ?, ?, ?, CURRENT_TIMESTAMP(6), CURRENT_TIMESTAMP(6)), (?, ?, ?, ?, ?, CURRENT_TIMESTAMP(6), CURRENT_TIMESTAMP(6))
