-- params: refund, delay millis, last_error, id, leased_by, claims, the bound
UPDATE postbox_outbox
SET attempts = attempts - ?, snoozes = snoozes + 1, available_at = (CAST((julianday('now') - 2440587.5) * 86400000.0 + 0.5 AS INTEGER) + ?),
  leased_by = NULL, last_error = ?
WHERE id = ? AND leased_by = ? AND claims = ? AND snoozes < ?
