-- params: none
UPDATE postbox_jobs_flow SET updated_at = statement_timestamp() WHERE kind = 'gate' AND name = ''
