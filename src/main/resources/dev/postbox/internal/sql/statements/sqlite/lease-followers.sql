-- Where the claim holds the write lock: leases the followers {ids} without counting an attempt (as
-- leaseRun) and returns them as a claim does. Params: leased_by, lease millis, the ids.
-- Under the claim's write lock the followers read are still due. No attempt is counted: one counts
-- once a row is handed to the transport (with its outcome). Params: leased_by, lease millis, the
-- ids.
UPDATE {table}
SET leased_by = ?, claims = claims + 1{claimSet},
  available_at = {nowPlusMillis}
WHERE id IN ({ids})
RETURNING id, attempts, claims, last_error IS NOT NULL AS failed_before, created_at, {columns}
