-- params: 3 ids
UPDATE postbox_jobs SET state = 0, available_at = statement_timestamp() WHERE id IN (?, ?, ?)
