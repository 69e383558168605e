-- params: the attempt to refund, id, leased_by, claims
UPDATE postbox_jobs
SET attempts = attempts - ?, available_at = CURRENT_TIMESTAMP(6), leased_by = NULL, state = CASE WHEN fair_tag IS NULL THEN state ELSE 5 END
WHERE id = ? AND leased_by = ? AND claims = ?
