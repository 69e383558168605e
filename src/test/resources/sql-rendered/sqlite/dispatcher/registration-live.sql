-- params: -lease millis
SELECT instance_id, settings, started_at FROM postbox_outbox_dispatchers WHERE seen_at >= (CAST((julianday('now') - 2440587.5) * 86400000.0 + 0.5 AS INTEGER) + ?)
