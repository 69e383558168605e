-- params: attempts, delay millis, last_error, id, leased_by, claims
UPDATE postbox_jobs
SET attempts = ?, available_at = DATEADD(MILLISECOND, CAST(? AS BIGINT), CURRENT_TIMESTAMP(6)),
  leased_by = NULL, state = CASE WHEN fair_tag IS NULL THEN state ELSE 5 END, last_error = COALESCE(?, last_error)
WHERE id = ? AND leased_by = ? AND claims = ?
