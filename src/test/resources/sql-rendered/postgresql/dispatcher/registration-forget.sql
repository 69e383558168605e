-- params: instance id, -2 leases in millis
DELETE FROM postbox_outbox_dispatchers WHERE instance_id = ? OR seen_at < (statement_timestamp() + ? * interval '1 millisecond')
