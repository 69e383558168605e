-- params: next tick, name
UPDATE postbox_jobs_schedules SET next_tick = ?, updated_at = statement_timestamp() WHERE name = ?
