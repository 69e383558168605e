-- params: per row: event_id, topic, msg_key, payload, headers
INSERT INTO postbox_outbox (event_id, topic, msg_key, payload, headers, available_at, created_at) VALUES (?, ?, ?, ?, ?, statement_timestamp(), statement_timestamp()), (?, ?, ?, ?, ?, statement_timestamp(), statement_timestamp()), (?, ?, ?, ?, ?, statement_timestamp(), statement_timestamp()) ON CONFLICT (event_id) DO NOTHING
