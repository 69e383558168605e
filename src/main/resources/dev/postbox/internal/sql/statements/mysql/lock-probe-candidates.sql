-- lockCandidates for a probe: newest first. Params: the ids, the limit.
-- Params: the ids, the limit.
SELECT id, attempts, claims, last_error IS NOT NULL AS failed_before, created_at, {columns}, available_at AS due_before_claim FROM {table} FORCE INDEX (PRIMARY)
WHERE id IN ({ids}) AND state = 0 AND available_at <= {now}{filter}
ORDER BY id DESC LIMIT ? FOR UPDATE SKIP LOCKED
