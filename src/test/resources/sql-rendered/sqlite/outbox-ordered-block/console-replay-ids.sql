-- params: 3 ids
UPDATE postbox_outbox
SET state = 0, attempts = 0, available_at = CAST((julianday('now') - 2440587.5) * 86400000.0 + 0.5 AS INTEGER), leased_by = NULL
WHERE state = 2 AND id IN (?, ?, ?)
