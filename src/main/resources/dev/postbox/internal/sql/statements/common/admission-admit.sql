-- Admits waiting jobs: claimable from now on like any pending job, due as of their admission, so
-- that claims, which take the oldest due first, take admitted jobs in the order of their admission
-- (their due time from before is older than that of jobs admitted earlier). By primary key alone:
-- with "AND state = 3" PostgreSQL may plan a scan of every waiting job; the admission holds the
-- gate, and only an admission moves a job out of state 3 (a cancel deletes it). Params: the ids.
UPDATE {table} SET state = 0, available_at = {now} WHERE id IN ({ids})
