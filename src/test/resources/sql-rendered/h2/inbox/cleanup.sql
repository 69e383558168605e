-- params: -retention millis, the limit
DELETE FROM postbox_inbox WHERE (consumer, event_id) IN (
  SELECT consumer, event_id FROM postbox_inbox
  WHERE created_at < DATEADD(MILLISECOND, CAST(? AS BIGINT), CURRENT_TIMESTAMP(6))
  LIMIT ?)
