-- params: -retention millis, the limit
DELETE FROM postbox_inbox WHERE (consumer, event_id) IN (
  SELECT consumer, event_id FROM postbox_inbox
  WHERE created_at < (CAST((julianday('now') - 2440587.5) * 86400000.0 + 0.5 AS INTEGER) + ?)
  LIMIT ?)
