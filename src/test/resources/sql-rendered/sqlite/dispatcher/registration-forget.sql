-- params: instance id, -2 leases in millis
DELETE FROM postbox_outbox_dispatchers WHERE instance_id = ? OR seen_at < (CAST((julianday('now') - 2440587.5) * 86400000.0 + 0.5 AS INTEGER) + ?)
