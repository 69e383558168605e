-- params: the 2 ids, the limit
SELECT id, attempts, claims, last_error IS NOT NULL AS failed_before, created_at, name, payload, max_attempts, dedupe_key, running_key, available_at, due_at, tick_at, available_at AS due_before_claim FROM postbox_jobs
WHERE id IN (?, ?) AND state = 0 AND available_at <= CURRENT_TIMESTAMP(6) AND (dedupe_key IS NULL OR NOT EXISTS (SELECT 1 FROM postbox_jobs running_job WHERE running_job.running_key = postbox_jobs.dedupe_key)) AND name NOT IN (SELECT name FROM postbox_jobs_flow WHERE kind = 'name' AND paused_at IS NOT NULL) AND name IN ('email', 'report')
LIMIT ? FOR UPDATE SKIP LOCKED
