-- params: the attempt to refund, id, leased_by, claims
UPDATE postbox_outbox
SET attempts = attempts - ?, available_at = statement_timestamp(), leased_by = NULL
WHERE id = ? AND leased_by = ? AND claims = ?
