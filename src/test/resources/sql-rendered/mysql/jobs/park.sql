-- params: attempts, last_error, id, leased_by, claims
UPDATE postbox_jobs
SET state = 2, attempts = ?, available_at = UTC_TIMESTAMP(6), leased_by = NULL,
  last_error = ?
WHERE id = ? AND leased_by = ? AND claims = ?
