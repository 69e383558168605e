-- params: -1000, 3 ids
UPDATE postbox_jobs SET state = 0, available_at = (statement_timestamp() + ? * interval '1 millisecond') WHERE id IN (?, ?, ?)
