-- Third step: leases the locked rows {ids}, counting an attempt. Params: leased_by, lease millis,
-- the ids.
UPDATE {table}
SET leased_by = ?, attempts = attempts + 1, claims = claims + 1{claimSet},
  available_at = {nowPlusMillis}
WHERE id IN ({ids})
