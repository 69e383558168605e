-- params: name, payload, max attempts, the step's now (due), the step's now (created), tick
INSERT INTO postbox_jobs (name, payload, max_attempts, available_at, created_at, tick_at) VALUES (?, ?, ?, ?, ?, ?)
