-- params: the name
UPDATE postbox_jobs_schedules SET next_tick = UTC_TIMESTAMP(6), updated_at = UTC_TIMESTAMP(6) WHERE name = ? AND next_tick > UTC_TIMESTAMP(6)
