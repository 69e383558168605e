-- params: -lease millis
SELECT instance_id, settings, started_at FROM postbox_outbox_dispatchers WHERE seen_at >= TIMESTAMPADD(MICROSECOND, ? * 1000, UTC_TIMESTAMP(6))
