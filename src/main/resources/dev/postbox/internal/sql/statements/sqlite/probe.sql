-- An outage probe: claims up to ? due rows, newest first, but those {excluded}. Params: leased_by,
-- lease millis, the excluded ids, the limit.
-- Params: leased_by, lease millis, the excluded ids, the limit.
UPDATE {table}
SET leased_by = ?, attempts = attempts + 1, claims = claims + 1{claimSet},
  available_at = {nowPlusMillis}
WHERE id IN (
  SELECT id FROM {table} WHERE state = 0 AND available_at <= {now}{filter}{excluded}
  ORDER BY id DESC LIMIT ?)
RETURNING id, attempts, claims, last_error IS NOT NULL AS failed_before, created_at, {columns}
