-- The job table's claim condition ({filter}): a job whose dedupe key a started job holds (in its
-- running_key) waits until that one ends, and a paused name's jobs wait in the flow table
-- {table}_flow (docs/jobs.md#flow-control). The flow table is read in a subquery, which a claim's
-- FOR UPDATE does not lock: a pause or resume not committed yet changes nothing, and never makes a
-- claim skip what it reads there.
 AND (dedupe_key IS NULL OR NOT EXISTS (SELECT 1 FROM {table} running_job WHERE running_job.running_key = {table}.dedupe_key)) AND name NOT IN (SELECT name FROM {table}_flow WHERE kind = 'name' AND paused_at IS NOT NULL)
