-- params: the key to start after, how many keys
SELECT k.msg_key,
  CASE WHEN EXISTS (SELECT 1 FROM postbox_outbox o WHERE o.msg_key = k.msg_key AND o.state IN (0, 2))
    THEN 1 ELSE 0 END AS in_use
FROM postbox_outbox_keys k WHERE k.msg_key > ? ORDER BY k.msg_key LIMIT ?
