-- params: leased_by, lease millis, the 2 ids
UPDATE postbox_outbox
SET leased_by = ?, claims = claims + 1,
  available_at = (CAST((julianday('now') - 2440587.5) * 86400000.0 + 0.5 AS INTEGER) + ?)
WHERE id IN (?, ?)
RETURNING id, attempts, claims, last_error IS NOT NULL AS failed_before, created_at, event_id, topic, msg_key, payload, headers
