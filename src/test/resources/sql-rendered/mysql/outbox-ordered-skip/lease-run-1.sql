-- params: leased_by, lease millis, the 1 ids
UPDATE postbox_outbox
SET leased_by = ?, claims = claims + 1,
  available_at = TIMESTAMPADD(MICROSECOND, ? * 1000, UTC_TIMESTAMP(6))
WHERE id IN (?)
