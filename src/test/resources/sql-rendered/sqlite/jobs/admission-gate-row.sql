-- params: none
INSERT INTO postbox_jobs_flow (kind, name, paused_at, updated_at) VALUES ('gate', '', NULL, CAST((julianday('now') - 2440587.5) * 86400000.0 + 0.5 AS INTEGER))
