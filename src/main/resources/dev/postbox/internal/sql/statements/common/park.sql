-- Failure for good: park. Params: attempts, last_error, id, leased_by, claims.
UPDATE {table}
SET state = 2, attempts = ?, available_at = {now}, leased_by = NULL,
  last_error = ?
WHERE id = ? AND leased_by = ? AND claims = ?
