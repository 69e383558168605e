-- Admits waiting jobs: claimable from now on like any pending job, due as of their admission, so
-- that claims, which take the oldest due first, take admitted jobs in the order of their admission
-- (their due time from before is older than that of jobs admitted earlier). Params: the ids.
UPDATE {table} SET state = 0, available_at = {now} WHERE state = 3 AND id IN ({ids})
