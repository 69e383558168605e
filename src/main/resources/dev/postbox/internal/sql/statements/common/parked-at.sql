-- 1 if the row is parked and was not claimed after claim claims (a parked row is not claimed): the
-- park of that claim stands, for a retried park that matched nothing. Params: id, claims. The same
-- on every database.
SELECT COUNT(*) FROM {table} WHERE id = ? AND claims = ? AND state = 2
