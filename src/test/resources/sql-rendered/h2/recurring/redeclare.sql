-- params: schedule, payload, next tick, name
UPDATE postbox_jobs_schedules SET schedule = ?, payload = ?, next_tick = ?, updated_at = CURRENT_TIMESTAMP(6) WHERE name = ?
