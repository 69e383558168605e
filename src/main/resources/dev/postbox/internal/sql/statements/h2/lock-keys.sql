-- Locks keys until the caller's transaction ends: their rows of the keys table ({keysTable}),
-- merged, in sorted order. {tuples}: one "(?)" per key. Params: the keys, sorted.
MERGE INTO {keysTable} (msg_key) KEY (msg_key) VALUES {tuples}
