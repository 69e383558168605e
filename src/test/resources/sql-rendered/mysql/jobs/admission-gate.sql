-- params: none
UPDATE postbox_jobs_flow SET updated_at = UTC_TIMESTAMP(6) WHERE kind = 'gate' AND name = ''
