-- params: instance id, settings
INSERT INTO postbox_outbox_dispatchers (instance_id, settings, started_at, seen_at) VALUES (?, ?, statement_timestamp(), statement_timestamp())
