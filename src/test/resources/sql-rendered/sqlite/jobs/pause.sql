-- params: the name
INSERT INTO postbox_jobs_flow (kind, name, paused_at, updated_at) VALUES ('name', ?, CAST((julianday('now') - 2440587.5) * 86400000.0 + 0.5 AS INTEGER), CAST((julianday('now') - 2440587.5) * 86400000.0 + 0.5 AS INTEGER)) ON CONFLICT (kind, name) DO NOTHING
