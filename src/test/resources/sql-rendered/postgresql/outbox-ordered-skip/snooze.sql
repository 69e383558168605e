-- params: refund, delay millis, last_error, id, leased_by, claims, the bound
UPDATE postbox_outbox
SET attempts = attempts - ?, snoozes = snoozes + 1, available_at = (statement_timestamp() + ? * interval '1 millisecond'),
  leased_by = NULL, last_error = ?
WHERE id = ? AND leased_by = ? AND claims = ? AND snoozes < ?
