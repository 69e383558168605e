-- params: leased_by, lease millis
UPDATE postbox_jobs
SET leased_by = ?, attempts = attempts + 1, claims = claims + 1, running_key = COALESCE(dedupe_key, running_key), dedupe_key = NULL, due_at = available_at,
  available_at = (CAST((julianday('now') - 2440587.5) * 86400000.0 + 0.5 AS INTEGER) + ?)
WHERE id IN (
  SELECT id FROM postbox_jobs WHERE state = 0 AND available_at <= CAST((julianday('now') - 2440587.5) * 86400000.0 + 0.5 AS INTEGER) AND (dedupe_key IS NULL OR NOT EXISTS (SELECT 1 FROM postbox_jobs running_job WHERE running_job.running_key = postbox_jobs.dedupe_key)) AND name NOT IN (SELECT name FROM postbox_jobs_flow WHERE kind = 'name' AND paused_at IS NOT NULL) AND name IN ('email', 'report')
  ORDER BY available_at, id LIMIT 500)
RETURNING id, attempts, claims, last_error IS NOT NULL AS failed_before, created_at, name, payload, max_attempts, dedupe_key, running_key, available_at, due_at, tick_at
