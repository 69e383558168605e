-- Second step: locks up to ? of the candidates {ids} still due, skipping rows others hold, looked
-- up by primary key so no other row is locked. Params: the ids, the limit.
-- No ORDER BY: H2 would lock every matching candidate before it sorts and applies the limit.
-- Params: the ids, the limit.
SELECT id, attempts, claims, last_error IS NOT NULL AS failed_before, created_at, {columns}, available_at AS due_before_claim FROM {table}
WHERE id IN ({ids}) AND state = 0 AND available_at <= {now}{filter}
LIMIT ? FOR UPDATE SKIP LOCKED
