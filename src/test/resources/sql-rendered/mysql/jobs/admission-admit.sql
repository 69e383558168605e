-- params: 3 ids
UPDATE postbox_jobs SET state = 0, available_at = UTC_TIMESTAMP(6) WHERE id IN (?, ?, ?)
