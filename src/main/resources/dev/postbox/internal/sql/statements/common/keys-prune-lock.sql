-- Locks the keys table's rows of the unused keys {keys} ("?" each), skipping those an add holds
-- now: the rows a prune then deletes. Params: the keys.
SELECT msg_key FROM {keysTable} WHERE msg_key IN ({keys}) FOR UPDATE SKIP LOCKED
