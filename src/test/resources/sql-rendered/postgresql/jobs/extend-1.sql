-- params: lease millis, leased_by, the 1 ids
UPDATE postbox_jobs SET available_at = (statement_timestamp() + ? * interval '1 millisecond')
WHERE state = 0 AND leased_by = ? AND id IN (?)
