-- params: -1000, 3 ids
UPDATE postbox_jobs SET state = 0, available_at = TIMESTAMPADD(MICROSECOND, ? * 1000, UTC_TIMESTAMP(6)) WHERE id IN (?, ?, ?)
