-- params: instance id, settings
INSERT INTO postbox_outbox_dispatchers (instance_id, settings, started_at, seen_at) VALUES (?, ?, CAST((julianday('now') - 2440587.5) * 86400000.0 + 0.5 AS INTEGER), CAST((julianday('now') - 2440587.5) * 86400000.0 + 0.5 AS INTEGER))
