-- params: -lease millis
SELECT instance_id, settings, started_at FROM postbox_outbox_dispatchers WHERE seen_at >= (statement_timestamp() + ? * interval '1 millisecond')
