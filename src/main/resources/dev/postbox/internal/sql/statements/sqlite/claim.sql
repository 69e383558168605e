-- Claims up to {limit} due rows, oldest due first. Params: leased_by, lease millis.
-- Params: leased_by, lease millis.
UPDATE {table}
SET leased_by = ?, attempts = attempts + 1, claims = claims + 1{claimSet},
  available_at = {nowPlusMillis}
WHERE id IN (
  SELECT id FROM {table} WHERE state = 0 AND available_at <= {now}{filter}
  ORDER BY available_at, id LIMIT {limit})
RETURNING id, attempts, claims, last_error IS NOT NULL AS failed_before, created_at, {columns}
