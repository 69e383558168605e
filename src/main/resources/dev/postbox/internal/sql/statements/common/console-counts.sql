-- The console's overview of a table. No count reads more than 10,001 rows, so that opening the
-- console never scans a large table (10,001 reads "more than 10,000"): rows due (their time has
-- come, none holds them); among the 10,001 rows not due yet that are due soonest, those running
-- (held by a live lease, which ends within the lease) and those retrying (failed, waiting for
-- their next attempt); parked rows; then the oldest due row's time (the lag) and now. No params.
SELECT
  (SELECT COUNT(*) FROM (SELECT id FROM {table}
     WHERE {pending} AND available_at <= {now} LIMIT 10001) d) AS due,
  (SELECT COALESCE(SUM(CASE WHEN leased_by IS NOT NULL THEN 1 ELSE 0 END), 0)
   FROM (SELECT leased_by FROM {table} WHERE {pending} AND available_at > {now}
         ORDER BY available_at LIMIT 10001) r) AS running,
  (SELECT COALESCE(SUM(CASE WHEN leased_by IS NULL AND attempts > 0 THEN 1 ELSE 0 END), 0)
   FROM (SELECT leased_by, attempts FROM {table} WHERE {pending} AND available_at > {now}
         ORDER BY available_at LIMIT 10001) f) AS retrying,
  (SELECT COUNT(*) FROM (SELECT id FROM {table} WHERE state = 2 LIMIT 10001) p) AS parked,
  (SELECT MIN(available_at) FROM {table} WHERE state = 0 AND available_at <= {now}) AS oldest_due,
  {now} AS db_now
