-- params: the name
INSERT INTO postbox_jobs_flow (kind, name, paused_at, updated_at) VALUES ('name', ?, statement_timestamp(), statement_timestamp()) ON CONFLICT (kind, name) DO NOTHING
