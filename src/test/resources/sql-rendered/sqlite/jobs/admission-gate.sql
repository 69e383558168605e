-- params: none
UPDATE postbox_jobs_flow SET updated_at = CAST((julianday('now') - 2440587.5) * 86400000.0 + 0.5 AS INTEGER) WHERE kind = 'gate' AND name = ''
