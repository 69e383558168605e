-- A part of the claim statements that include it ({_lease}).
UPDATE {table}
  SET leased_by = claim$lease.lease_owner, attempts = attempts + claim$due.due_charge,
    claims = claims + 1{claimSet},
    available_at = {now} + claim$lease.lease_millis * interval '1 millisecond'
  FROM claim$due, claim$lease WHERE id = claim$due.due_id
  RETURNING id, attempts, claims, last_error IS NOT NULL AS failed_before, created_at, {columns}, claim$due.due_available_at AS due_before_claim, claim$due.due_charge AS charged
