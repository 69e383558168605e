-- For a table ordered by key whose parked rows block their keys: of the keys {ids}, each one that
-- has a parked row, with the oldest parked row's id (served by the key index). Params: the keys.
SELECT {key}, MIN(id) FROM {table} WHERE {key} IN ({ids}) AND state = 2 GROUP BY {key}
