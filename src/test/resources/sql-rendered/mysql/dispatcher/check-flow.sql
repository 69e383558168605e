-- params: none
SELECT kind, name, paused_at, updated_at FROM postbox_jobs_flow WHERE 1 = 0
