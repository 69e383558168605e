-- params: the attempt to refund, id, leased_by, claims
UPDATE postbox_jobs
SET attempts = attempts - ?, available_at = CAST((julianday('now') - 2440587.5) * 86400000.0 + 0.5 AS INTEGER), leased_by = NULL, state = CASE WHEN fair_tag IS NULL THEN state ELSE 5 END
WHERE id = ? AND leased_by = ? AND claims = ?
