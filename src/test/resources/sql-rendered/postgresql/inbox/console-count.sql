-- params: none
SELECT (SELECT COUNT(*) FROM (SELECT event_id FROM postbox_inbox LIMIT 10001) i) AS processed,
  (SELECT MIN(created_at) FROM postbox_inbox) AS oldest, statement_timestamp() AS db_now
