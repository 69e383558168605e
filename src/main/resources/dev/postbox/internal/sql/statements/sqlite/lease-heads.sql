-- Where the claim holds the write lock: leases up to ? of the rows {ids} that are due and heads of
-- their keys, as claimHeads would. Params: leased_by, lease millis, the ids, the limit.
-- Params: leased_by, lease millis, the ids.
UPDATE {table}
SET leased_by = ?, attempts = attempts + 1, claims = claims + 1{claimSet},
  available_at = {nowPlusMillis}
WHERE id IN (
  SELECT id FROM {table} WHERE id IN ({ids}) AND state = 0 AND available_at <= {now}{filter}
  ORDER BY available_at, id LIMIT ?)
RETURNING id, attempts, claims, last_error IS NOT NULL AS failed_before, created_at, {columns}
