-- params: the step's now, the 1 names
SELECT name, schedule, payload, next_tick, last_tick, last_run FROM postbox_jobs_schedules WHERE next_tick <= ? AND name IN (?) FOR UPDATE SKIP LOCKED
