-- params: none
SELECT COUNT(*) FROM (
  SELECT 1 FROM postbox_outbox WHERE state = 0 AND available_at <= CAST((julianday('now') - 2440587.5) * 86400000.0 + 0.5 AS INTEGER) LIMIT 1000)
