-- params: name, schedule, payload, next tick
INSERT INTO postbox_jobs_schedules (name, schedule, payload, next_tick, updated_at) VALUES (?, ?, ?, ?, CAST((julianday('now') - 2440587.5) * 86400000.0 + 0.5 AS INTEGER))
