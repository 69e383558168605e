-- params: -lease millis
SELECT instance_id, settings, started_at FROM postbox_outbox_dispatchers WHERE seen_at >= DATEADD(MILLISECOND, CAST(? AS BIGINT), CURRENT_TIMESTAMP(6))
