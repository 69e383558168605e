-- On a table ordered by key whose parked rows block their keys: up to ? such keys, oldest parked
-- first, each with its parked row and the count of rows waiting behind it. Params: the limit.
SELECT p.{key} AS blocked_key, p.id, p.{ref} AS ref, p.{topic} AS topic, p.attempts,
  p.last_error, p.created_at,
  (SELECT COUNT(*) FROM {table} w WHERE w.{key} = p.{key} AND w.state = 0) AS waiting
FROM {table} p
WHERE p.state = 2 AND p.{key} IS NOT NULL AND NOT EXISTS (
  SELECT 1 FROM {table} e WHERE e.{key} = p.{key} AND e.state = 2 AND e.id < p.id)
ORDER BY p.id LIMIT ?
