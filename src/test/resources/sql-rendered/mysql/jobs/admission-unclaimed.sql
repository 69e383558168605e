-- params: none
SELECT COUNT(*) FROM postbox_jobs
WHERE state = 0 AND fair_tag IS NOT NULL AND (leased_by IS NULL OR available_at <= UTC_TIMESTAMP(6)) AND (dedupe_key IS NULL OR NOT EXISTS (SELECT 1 FROM postbox_jobs running_job WHERE running_job.running_key = postbox_jobs.dedupe_key)) AND name NOT IN (SELECT name FROM postbox_jobs_flow WHERE kind = 'name' AND paused_at IS NOT NULL) AND name IN ('email', 'report')
