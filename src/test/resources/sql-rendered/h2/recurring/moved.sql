-- params: next tick, name
UPDATE postbox_jobs_schedules SET next_tick = ?, updated_at = CURRENT_TIMESTAMP(6) WHERE name = ?
