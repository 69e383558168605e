-- params: -1000, 3 ids
UPDATE postbox_jobs SET state = 0, available_at = DATEADD(MILLISECOND, CAST(? AS BIGINT), CURRENT_TIMESTAMP(6)) WHERE id IN (?, ?, ?)
