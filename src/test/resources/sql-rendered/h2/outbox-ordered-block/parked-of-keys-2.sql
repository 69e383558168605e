-- params: the 2 keys
SELECT msg_key, MIN(id) FROM postbox_outbox WHERE msg_key IN (?, ?) AND state = 2 GROUP BY msg_key
