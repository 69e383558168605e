-- params: the key to start after, how many keys
SELECT walk$keys.walk_key, walk$keys.walk_id,
  CASE WHEN walk$row.available_at <= UTC_TIMESTAMP(6) THEN 1 ELSE 0 END AS walk_due
FROM (
  SELECT msg_key AS walk_key, MIN(id) AS walk_id FROM postbox_outbox
  WHERE msg_key > ? AND msg_key IS NOT NULL AND state = 0 GROUP BY msg_key ORDER BY msg_key LIMIT ?) walk$keys
JOIN postbox_outbox walk$row ON walk$row.id = walk$keys.walk_id
ORDER BY walk$keys.walk_key
