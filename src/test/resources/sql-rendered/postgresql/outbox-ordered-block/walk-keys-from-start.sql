-- params: how many keys
WITH RECURSIVE walk$keys (walk_key, walk_id, walk_at, walk_n) AS (
  (SELECT msg_key, id, available_at, 1 FROM postbox_outbox
   WHERE msg_key IS NOT NULL AND state = 0 ORDER BY msg_key, id LIMIT 1)
  UNION ALL
  SELECT walk$next.k, walk$next.id, walk$next.available_at, walk$keys.walk_n + 1
  FROM walk$keys CROSS JOIN LATERAL (
    SELECT msg_key AS k, id, available_at FROM postbox_outbox
    WHERE msg_key > walk$keys.walk_key AND state = 0 ORDER BY msg_key, id LIMIT 1) walk$next
  WHERE walk$keys.walk_n < ?)
SELECT walk_key, walk_id, CASE WHEN walk_at <= statement_timestamp() THEN 1 ELSE 0 END
  AS walk_due
FROM walk$keys
