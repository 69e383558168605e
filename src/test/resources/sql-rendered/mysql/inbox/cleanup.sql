-- params: -retention millis, the limit
DELETE FROM postbox_inbox
WHERE created_at < TIMESTAMPADD(MICROSECOND, ? * 1000, UTC_TIMESTAMP(6)) LIMIT ?
