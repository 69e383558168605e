-- params: none
SELECT instance_id, settings, started_at, seen_at FROM postbox_outbox_dispatchers WHERE 1 = 0
