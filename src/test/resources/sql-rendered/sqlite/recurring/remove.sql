-- params: the name
DELETE FROM postbox_jobs_schedules WHERE name = ?
