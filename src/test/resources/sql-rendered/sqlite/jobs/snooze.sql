-- params: refund, delay millis, last_error, id, leased_by, claims, the bound
UPDATE postbox_jobs
SET attempts = attempts - ?, snoozes = snoozes + 1, available_at = (CAST((julianday('now') - 2440587.5) * 86400000.0 + 0.5 AS INTEGER) + ?),
  leased_by = NULL, state = CASE WHEN fair_tag IS NULL THEN state ELSE 5 END, last_error = ?
WHERE id = ? AND leased_by = ? AND claims = ? AND snoozes < ?
