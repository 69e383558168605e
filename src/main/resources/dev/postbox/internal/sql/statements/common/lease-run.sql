-- Third step for the locked rows {ids} of runs behind their heads: lease without counting an
-- attempt, which counts only once a row is handed to the transport (with its outcome). Params:
-- leased_by, lease millis, the ids.
UPDATE {table}
SET leased_by = ?, claims = claims + 1{claimSet},
  available_at = {nowPlusMillis}
WHERE id IN ({ids})
