-- params: instance id
UPDATE postbox_outbox_dispatchers SET seen_at = CAST((julianday('now') - 2440587.5) * 86400000.0 + 0.5 AS INTEGER) WHERE instance_id = ?
