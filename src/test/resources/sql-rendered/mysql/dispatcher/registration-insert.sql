-- params: instance id, settings
INSERT INTO postbox_outbox_dispatchers (instance_id, settings, started_at, seen_at) VALUES (?, ?, UTC_TIMESTAMP(6), UTC_TIMESTAMP(6))
