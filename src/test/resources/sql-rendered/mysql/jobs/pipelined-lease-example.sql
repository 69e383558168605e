-- params: none: written in (leased_by 'instance-1', lease millis 120000, ids 1, 2)
UPDATE postbox_jobs
SET leased_by = _utf8mb4 X'696e7374616e63652d31', attempts = attempts + 1, claims = claims + 1, running_key = COALESCE(dedupe_key, running_key), dedupe_key = NULL, due_at = available_at,
  available_at = TIMESTAMPADD(MICROSECOND, 120000 * 1000, UTC_TIMESTAMP(6))
WHERE id IN (1, 2)
