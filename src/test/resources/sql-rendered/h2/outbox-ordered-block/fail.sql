-- params: attempts, delay millis, last_error, id, leased_by, claims
UPDATE postbox_outbox
SET attempts = ?, available_at = DATEADD(MILLISECOND, CAST(? AS BIGINT), CURRENT_TIMESTAMP(6)),
  leased_by = NULL, last_error = COALESCE(?, last_error)
WHERE id = ? AND leased_by = ? AND claims = ?
