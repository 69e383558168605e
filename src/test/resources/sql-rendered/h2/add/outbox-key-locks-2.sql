-- params: the 2 keys, sorted
MERGE INTO postbox_outbox_keys (msg_key) KEY (msg_key) VALUES (?), (?)
