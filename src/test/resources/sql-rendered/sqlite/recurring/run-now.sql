-- params: the name
UPDATE postbox_jobs_schedules SET next_tick = CAST((julianday('now') - 2440587.5) * 86400000.0 + 0.5 AS INTEGER), updated_at = CAST((julianday('now') - 2440587.5) * 86400000.0 + 0.5 AS INTEGER) WHERE name = ? AND next_tick > CAST((julianday('now') - 2440587.5) * 86400000.0 + 0.5 AS INTEGER)
