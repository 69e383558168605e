-- What a claim of a job also sets ({claimSet}): a retry keeps the key it took on its first claim;
-- MySQL assigns left to right, so running_key takes the key before dedupe_key is cleared, and
-- due_at the due time before available_at becomes the lease's end.
, running_key = COALESCE(dedupe_key, running_key), dedupe_key = NULL, due_at = available_at
