-- params: payload, name
UPDATE postbox_jobs_schedules SET payload = ?, updated_at = CAST((julianday('now') - 2440587.5) * 86400000.0 + 0.5 AS INTEGER) WHERE name = ?
