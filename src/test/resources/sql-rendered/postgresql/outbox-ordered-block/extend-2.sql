-- params: lease millis, leased_by, the 2 ids
UPDATE postbox_outbox SET available_at = (statement_timestamp() + ? * interval '1 millisecond')
WHERE state = 0 AND leased_by = ? AND id IN (?, ?)
