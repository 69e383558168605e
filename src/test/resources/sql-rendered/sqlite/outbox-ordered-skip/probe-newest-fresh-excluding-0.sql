-- params: leased_by, lease millis, the limit
UPDATE postbox_outbox
SET leased_by = ?, attempts = attempts + 1, claims = claims + 1,
  available_at = (CAST((julianday('now') - 2440587.5) * 86400000.0 + 0.5 AS INTEGER) + ?)
WHERE id IN (
  SELECT id FROM postbox_outbox WHERE state = 0 AND available_at <= CAST((julianday('now') - 2440587.5) * 86400000.0 + 0.5 AS INTEGER) AND (postbox_outbox.msg_key IS NULL OR NOT EXISTS (SELECT 1 FROM postbox_outbox postbox_prior WHERE postbox_prior.msg_key = postbox_outbox.msg_key AND postbox_prior.state = 0 AND postbox_prior.id < postbox_outbox.id)) AND attempts = 0
  ORDER BY id DESC LIMIT ?)
RETURNING id, attempts, claims, last_error IS NOT NULL AS failed_before, created_at, event_id, topic, msg_key, payload, headers
