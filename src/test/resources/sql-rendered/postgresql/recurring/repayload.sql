-- params: payload, name
UPDATE postbox_jobs_schedules SET payload = ?, updated_at = statement_timestamp() WHERE name = ?
