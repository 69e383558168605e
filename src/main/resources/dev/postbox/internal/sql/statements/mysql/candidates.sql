-- First step of a claim by id: the ids of up to {window} due rows, oldest due first, but those
-- {excluded} (candidates other claimers held), read without locks. Params: the excluded.
-- Served by the claim index alone, no filesort (MariaDbClaimPlanTest). Params: the excluded.
SELECT id{windowKey} FROM {table}
WHERE state = 0 AND available_at <= {now}{filter}{excluded}
ORDER BY available_at, id LIMIT {window}
