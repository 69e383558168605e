-- Failure: retry after a delay. Params: attempts, delay millis, last_error (null keeps the row's:
-- an outage refund, which is no failure of the row's own), id, leased_by, claims.
UPDATE {table}
SET attempts = ?, available_at = {nowPlusMillis},
  leased_by = NULL{unleaseSet}, last_error = COALESCE(?, last_error)
WHERE id = ? AND leased_by = ? AND claims = ?
