-- params: the name
UPDATE postbox_jobs_schedules SET next_tick = statement_timestamp(), updated_at = statement_timestamp() WHERE name = ? AND next_tick > statement_timestamp()
