-- params: the key, the head's id, how many
SELECT * FROM (
  SELECT id, msg_key AS run_key, CASE WHEN available_at <= UTC_TIMESTAMP(6) THEN 1 ELSE 0 END AS ready
  FROM postbox_outbox WHERE msg_key = ? AND state = 0 AND id > ? ORDER BY id LIMIT ?) AS run0
