-- Locks keys until the caller's transaction ends: their rows of the keys table ({keysTable}),
-- inserted or updated, in sorted order. {tuples}: one "(?)" per key. Params: the keys, sorted.
INSERT INTO {keysTable} (msg_key) VALUES {tuples} ON DUPLICATE KEY UPDATE msg_key = msg_key
