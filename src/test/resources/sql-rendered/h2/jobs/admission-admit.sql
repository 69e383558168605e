-- params: 3 ids
UPDATE postbox_jobs SET state = 0, available_at = CURRENT_TIMESTAMP(6) WHERE id IN (?, ?, ?)
