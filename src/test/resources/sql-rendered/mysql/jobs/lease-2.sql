-- params: leased_by, lease millis, the 2 ids
UPDATE postbox_jobs
SET leased_by = ?, attempts = attempts + 1, claims = claims + 1, running_key = COALESCE(dedupe_key, running_key), dedupe_key = NULL, due_at = available_at,
  available_at = TIMESTAMPADD(MICROSECOND, ? * 1000, UTC_TIMESTAMP(6))
WHERE id IN (?, ?)
