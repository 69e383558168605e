-- Locks the followers {ids} still pending and due, and reads them as a claim does. Params: the ids.
-- Params: the ids.
SELECT id, attempts, claims, last_error IS NOT NULL AS failed_before, created_at, {columns}, available_at AS due_before_claim FROM {table}
WHERE id IN ({ids}) AND state = 0 AND available_at <= {now} FOR UPDATE
