-- params: -retention millis, the limit
DELETE FROM postbox_jobs
WHERE state = 1 AND available_at < TIMESTAMPADD(MICROSECOND, ? * 1000, UTC_TIMESTAMP(6))
LIMIT ?
