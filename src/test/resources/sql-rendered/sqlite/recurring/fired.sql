-- params: next tick, last tick, last run, name
UPDATE postbox_jobs_schedules SET next_tick = ?, last_tick = ?, last_run = ?, updated_at = CAST((julianday('now') - 2440587.5) * 86400000.0 + 0.5 AS INTEGER) WHERE name = ?
