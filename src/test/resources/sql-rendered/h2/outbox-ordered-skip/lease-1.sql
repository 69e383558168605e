-- params: leased_by, lease millis, the 1 ids
UPDATE postbox_outbox
SET leased_by = ?, attempts = attempts + 1, claims = claims + 1,
  available_at = DATEADD(MILLISECOND, CAST(? AS BIGINT), CURRENT_TIMESTAMP(6))
WHERE id IN (?)
