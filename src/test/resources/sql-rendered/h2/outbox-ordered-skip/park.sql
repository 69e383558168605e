-- params: attempts, last_error, id, leased_by, claims
UPDATE postbox_outbox
SET state = 2, attempts = ?, available_at = CURRENT_TIMESTAMP(6), leased_by = NULL,
  last_error = ?
WHERE id = ? AND leased_by = ? AND claims = ?
