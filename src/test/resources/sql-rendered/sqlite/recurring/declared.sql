-- params: the name
SELECT schedule, payload, last_tick FROM postbox_jobs_schedules WHERE name = ?
