-- Hand back a row not started: due at once, the attempt its claim counted refunded (where the claim
-- did not return the row's due time). Params: the attempt to refund (1, or 0 for a row of a run
-- behind its head, which its claim did not count), id, leased_by, claims.
UPDATE {table}
SET attempts = attempts - ?, available_at = {now}, leased_by = NULL{unleaseSet}
WHERE id = ? AND leased_by = ? AND claims = ?
