-- params: the key, the head's id, how many
SELECT * FROM (
  SELECT id, msg_key AS run_key, CASE WHEN available_at <= CAST((julianday('now') - 2440587.5) * 86400000.0 + 0.5 AS INTEGER) THEN 1 ELSE 0 END AS ready
  FROM postbox_outbox WHERE msg_key = ? AND state = 0 AND id > ? ORDER BY id LIMIT ?) AS run0
