-- params: lease millis, leased_by, the 3 ids
UPDATE postbox_outbox SET available_at = DATEADD(MILLISECOND, CAST(? AS BIGINT), CURRENT_TIMESTAMP(6))
WHERE state = 0 AND leased_by = ? AND id IN (?, ?, ?)
