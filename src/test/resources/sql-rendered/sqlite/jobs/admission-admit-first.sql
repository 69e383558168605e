-- params: -1000, 3 ids
UPDATE postbox_jobs SET state = 0, available_at = (CAST((julianday('now') - 2440587.5) * 86400000.0 + 0.5 AS INTEGER) + ?) WHERE id IN (?, ?, ?)
