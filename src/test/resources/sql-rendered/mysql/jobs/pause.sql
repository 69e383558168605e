-- params: the name
INSERT INTO postbox_jobs_flow (kind, name, paused_at, updated_at) VALUES ('name', ?, UTC_TIMESTAMP(6), UTC_TIMESTAMP(6)) ON DUPLICATE KEY UPDATE kind = kind
