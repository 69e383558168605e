-- params: lease millis, leased_by, the 1 ids
UPDATE postbox_outbox SET available_at = (CAST((julianday('now') - 2440587.5) * 86400000.0 + 0.5 AS INTEGER) + ?)
WHERE state = 0 AND leased_by = ? AND id IN (?)
