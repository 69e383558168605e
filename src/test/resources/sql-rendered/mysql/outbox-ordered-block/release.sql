-- params: the attempt to refund, id, leased_by, claims
UPDATE postbox_outbox
SET attempts = attempts - ?, available_at = UTC_TIMESTAMP(6), leased_by = NULL
WHERE id = ? AND leased_by = ? AND claims = ?
