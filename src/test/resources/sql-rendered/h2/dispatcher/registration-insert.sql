-- params: instance id, settings
INSERT INTO postbox_outbox_dispatchers (instance_id, settings, started_at, seen_at) VALUES (?, ?, CURRENT_TIMESTAMP(6), CURRENT_TIMESTAMP(6))
