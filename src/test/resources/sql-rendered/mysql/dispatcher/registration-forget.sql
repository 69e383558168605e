-- params: instance id, -2 leases in millis
DELETE FROM postbox_outbox_dispatchers WHERE instance_id = ? OR seen_at < TIMESTAMPADD(MICROSECOND, ? * 1000, UTC_TIMESTAMP(6))
