-- params: the 2 keys, sorted
INSERT INTO postbox_outbox_keys (msg_key) VALUES (?), (?) ON DUPLICATE KEY UPDATE msg_key = msg_key
