-- A step of the keys table's pruning ({keysTable}, MySQL, MariaDB and H2): the next ? keys after a
-- key, in key order, each with in_use 1 if a message of it is still pending or parked, read
-- without locks. Params: the key to start after ('' for the first), how many keys.
SELECT k.msg_key,
  CASE WHEN EXISTS (SELECT 1 FROM {table} o WHERE o.msg_key = k.msg_key AND o.state IN (0, 2))
    THEN 1 ELSE 0 END AS in_use
FROM {keysTable} k WHERE k.msg_key > ? ORDER BY k.msg_key LIMIT ?
