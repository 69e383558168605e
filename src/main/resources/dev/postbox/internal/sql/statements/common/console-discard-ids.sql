-- Deletes these parked rows. Params: the ids.
DELETE FROM {table} WHERE state = 2 AND id IN ({ids})
