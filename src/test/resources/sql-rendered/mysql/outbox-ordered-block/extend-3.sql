-- params: lease millis, leased_by, the 3 ids
UPDATE postbox_outbox SET available_at = TIMESTAMPADD(MICROSECOND, ? * 1000, UTC_TIMESTAMP(6))
WHERE state = 0 AND leased_by = ? AND id IN (?, ?, ?)
