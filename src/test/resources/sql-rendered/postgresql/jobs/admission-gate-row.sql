-- params: none
INSERT INTO postbox_jobs_flow (kind, name, paused_at, updated_at) VALUES ('gate', '', NULL, statement_timestamp())
