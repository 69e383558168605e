-- params: none
SELECT (SELECT COUNT(*) FROM (SELECT event_id FROM postbox_inbox LIMIT 10001) i) AS processed,
  (SELECT MIN(created_at) FROM postbox_inbox) AS oldest, CAST((julianday('now') - 2440587.5) * 86400000.0 + 0.5 AS INTEGER) AS db_now
