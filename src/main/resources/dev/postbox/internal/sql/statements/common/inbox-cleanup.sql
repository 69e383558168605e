-- Deletes up to ? inbox rows older than the retention (on an inbox table: {table} only). Params:
-- -retention millis, the limit.
DELETE FROM {table} WHERE (consumer, event_id) IN (
  SELECT consumer, event_id FROM {table}
  WHERE created_at < {nowPlusMillis}
  LIMIT ?)
