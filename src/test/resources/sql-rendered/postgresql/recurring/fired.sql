-- params: next tick, last tick, last run, name
UPDATE postbox_jobs_schedules SET next_tick = ?, last_tick = ?, last_run = ?, updated_at = statement_timestamp() WHERE name = ?
