-- params: the name
UPDATE postbox_jobs_schedules SET next_tick = CURRENT_TIMESTAMP(6), updated_at = CURRENT_TIMESTAMP(6) WHERE name = ? AND next_tick > CURRENT_TIMESTAMP(6)
