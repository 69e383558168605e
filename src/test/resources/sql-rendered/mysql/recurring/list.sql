-- params: none
SELECT s.name, s.schedule, s.payload, s.next_tick, s.last_tick, s.last_run, j.state, j.attempts, j.leased_by FROM postbox_jobs_schedules s LEFT JOIN postbox_jobs j ON j.id = s.last_run ORDER BY s.name
