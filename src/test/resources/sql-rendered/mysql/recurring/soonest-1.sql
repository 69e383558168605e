-- params: a time, the 1 names
SELECT MIN(next_tick) AS soonest FROM postbox_jobs_schedules WHERE next_tick > ? AND name IN (?)
