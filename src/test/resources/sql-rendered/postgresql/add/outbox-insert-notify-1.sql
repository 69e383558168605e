-- params: per row: event_id, topic, msg_key, payload, headers
WITH added AS (INSERT INTO postbox_outbox (event_id, topic, msg_key, payload, headers, available_at, created_at) VALUES (?, ?, ?, ?, ?, statement_timestamp(), statement_timestamp()) RETURNING 1) SELECT COUNT(*), pg_notify('postbox_outbox', '') FROM added
