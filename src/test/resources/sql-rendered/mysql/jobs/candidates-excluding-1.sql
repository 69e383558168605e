-- params: the 1 excluded ids
SELECT id FROM postbox_jobs
WHERE state = 0 AND available_at <= UTC_TIMESTAMP(6) AND (dedupe_key IS NULL OR NOT EXISTS (SELECT 1 FROM postbox_jobs running_job WHERE running_job.running_key = postbox_jobs.dedupe_key)) AND name NOT IN (SELECT name FROM postbox_jobs_flow WHERE kind = 'name' AND paused_at IS NOT NULL) AND name IN ('email', 'report') AND id NOT IN (?)
ORDER BY available_at, id LIMIT 1000
