-- params: schedule, payload, next tick, name
UPDATE postbox_jobs_schedules SET schedule = ?, payload = ?, next_tick = ?, updated_at = statement_timestamp() WHERE name = ?
