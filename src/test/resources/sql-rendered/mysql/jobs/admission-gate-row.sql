-- params: none
INSERT INTO postbox_jobs_flow (kind, name, paused_at, updated_at) VALUES ('gate', '', NULL, UTC_TIMESTAMP(6))
