-- Deletes the keys table's rows {keys} ("?" each), locked by this transaction. A key's row is
-- only the lock its adds take in turn, so the next add of the key inserts it again. Params: the
-- keys.
DELETE FROM {keysTable} WHERE msg_key IN ({keys})
