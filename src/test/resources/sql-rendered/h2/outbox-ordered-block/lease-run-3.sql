-- params: leased_by, lease millis, the 3 ids
UPDATE postbox_outbox
SET leased_by = ?, claims = claims + 1,
  available_at = DATEADD(MILLISECOND, CAST(? AS BIGINT), CURRENT_TIMESTAMP(6))
WHERE id IN (?, ?, ?)
