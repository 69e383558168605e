-- params: the attempt to refund, available_at, id, leased_by, claims
UPDATE postbox_jobs
SET attempts = attempts - ?, available_at = ?, leased_by = NULL, state = CASE WHEN fair_tag IS NULL THEN state ELSE 5 END
WHERE id = ? AND leased_by = ? AND claims = ?
