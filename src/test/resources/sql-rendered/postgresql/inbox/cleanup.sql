-- params: -retention millis, the limit
DELETE FROM postbox_inbox WHERE (consumer, event_id) IN (
  SELECT consumer, event_id FROM postbox_inbox
  WHERE created_at < (statement_timestamp() + ? * interval '1 millisecond')
  LIMIT ?)
