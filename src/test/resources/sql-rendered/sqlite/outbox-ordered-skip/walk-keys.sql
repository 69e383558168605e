-- params: the key to start after, how many keys
WITH RECURSIVE walk$keys (walk_key, walk_n) AS (
  SELECT (SELECT msg_key FROM postbox_outbox WHERE msg_key > ? AND msg_key IS NOT NULL AND state = 0
    ORDER BY msg_key LIMIT 1), 1
  UNION ALL
  SELECT (SELECT msg_key FROM postbox_outbox WHERE msg_key > walk$keys.walk_key AND state = 0
    ORDER BY msg_key LIMIT 1), walk$keys.walk_n + 1
  FROM walk$keys WHERE walk$keys.walk_key IS NOT NULL AND walk$keys.walk_n < ?)
SELECT walk$keys.walk_key, walk$row.id AS walk_id,
  CASE WHEN walk$row.available_at <= CAST((julianday('now') - 2440587.5) * 86400000.0 + 0.5 AS INTEGER) THEN 1 ELSE 0 END AS walk_due
FROM walk$keys JOIN postbox_outbox walk$row ON walk$row.id = (
  SELECT id FROM postbox_outbox WHERE msg_key = walk$keys.walk_key AND state = 0 ORDER BY id LIMIT 1)
ORDER BY walk$keys.walk_n
