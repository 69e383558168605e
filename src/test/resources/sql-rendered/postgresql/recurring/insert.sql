-- params: name, schedule, payload, next tick
INSERT INTO postbox_jobs_schedules (name, schedule, payload, next_tick, updated_at) VALUES (?, ?, ?, ?, statement_timestamp())
