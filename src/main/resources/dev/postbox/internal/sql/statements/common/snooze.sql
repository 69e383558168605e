-- Snooze (RetryLater): due again after a delay, the attempt its claim counted refunded, the reason
-- in last_error, while the row has been snoozed fewer than the bound times (else nothing matches,
-- and the snooze counts as a failed attempt). Params: the attempt to refund (1, or 0 for a row of
-- a run behind its head, which its claim did not count), delay millis, last_error, id, leased_by,
-- claims, the bound.
UPDATE {table}
SET attempts = attempts - ?, snoozes = snoozes + 1, available_at = {nowPlusMillis},
  leased_by = NULL{unleaseSet}, last_error = ?
WHERE id = ? AND leased_by = ? AND claims = ? AND snoozes < ?
