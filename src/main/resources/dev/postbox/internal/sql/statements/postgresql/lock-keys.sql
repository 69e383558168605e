-- Locks the keys of an add that does not fit one insert-locking ({keyLocks}: key-lock or
-- key-locks) until the caller's transaction ends. Params: the key, or the keys as a text array.
WITH {_key-stripe} {keyLocks}
