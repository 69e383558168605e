-- Deletes the parked row with {ref} = ?. Params: the ref.
DELETE FROM {table} WHERE state = 2 AND {ref} = ?
