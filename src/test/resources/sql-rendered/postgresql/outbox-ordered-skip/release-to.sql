-- params: the attempt to refund, available_at, id, leased_by, claims
UPDATE postbox_outbox
SET attempts = attempts - ?, available_at = ?, leased_by = NULL
WHERE id = ? AND leased_by = ? AND claims = ?
