-- params: payload, name
UPDATE postbox_jobs_schedules SET payload = ?, updated_at = CURRENT_TIMESTAMP(6) WHERE name = ?
