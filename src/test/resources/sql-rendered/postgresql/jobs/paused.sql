-- params: none
SELECT name FROM postbox_jobs_flow WHERE kind = 'name' AND paused_at IS NOT NULL
