-- params: next tick, last tick, last run, name
UPDATE postbox_jobs_schedules SET next_tick = ?, last_tick = ?, last_run = ?, updated_at = CURRENT_TIMESTAMP(6) WHERE name = ?
