-- params: attempts, delay millis, last_error, id, leased_by, claims
UPDATE postbox_outbox
SET attempts = ?, available_at = (statement_timestamp() + ? * interval '1 millisecond'),
  leased_by = NULL, last_error = COALESCE(?, last_error)
WHERE id = ? AND leased_by = ? AND claims = ?
