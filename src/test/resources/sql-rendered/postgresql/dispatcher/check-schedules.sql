-- params: none
SELECT name, schedule, payload, next_tick, last_tick, last_run, updated_at FROM postbox_jobs_schedules WHERE 1 = 0
