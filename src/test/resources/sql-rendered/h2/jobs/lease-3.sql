-- params: leased_by, lease millis, the 3 ids
UPDATE postbox_jobs
SET leased_by = ?, attempts = attempts + 1, claims = claims + 1, running_key = COALESCE(dedupe_key, running_key), dedupe_key = NULL, due_at = available_at,
  available_at = DATEADD(MILLISECOND, CAST(? AS BIGINT), CURRENT_TIMESTAMP(6))
WHERE id IN (?, ?, ?)
