-- params: none
SELECT id, grp, name, fair_tag FROM postbox_jobs
WHERE state = 3 AND available_at <= UTC_TIMESTAMP(6) AND (dedupe_key IS NULL OR NOT EXISTS (SELECT 1 FROM postbox_jobs running_job WHERE running_job.running_key = postbox_jobs.dedupe_key)) AND name NOT IN (SELECT name FROM postbox_jobs_flow WHERE kind = 'name' AND paused_at IS NOT NULL) AND name IN ('email', 'report')
ORDER BY fair_tag, id LIMIT 1000
