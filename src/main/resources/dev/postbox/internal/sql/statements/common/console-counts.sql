-- The console's overview of a table. Each count reads at most 10,001 rows, so that opening the
-- console never scans a large table (10,001 reads "more than 10,000"): rows due (their time has
-- come, none holds them), running (held by a live lease), retrying (failed, waiting for their next
-- attempt), parked; then the oldest due row's time (the lag) and now. No params.
SELECT
  (SELECT COUNT(*) FROM (SELECT id FROM {table}
     WHERE {pending} AND available_at <= {now} LIMIT 10001) d) AS due,
  (SELECT COUNT(*) FROM (SELECT id FROM {table}
     WHERE {pending} AND available_at > {now} AND leased_by IS NOT NULL LIMIT 10001) r) AS running,
  (SELECT COUNT(*) FROM (SELECT id FROM {table}
     WHERE {pending} AND available_at > {now} AND leased_by IS NULL AND attempts > 0
     LIMIT 10001) f) AS retrying,
  (SELECT COUNT(*) FROM (SELECT id FROM {table} WHERE state = 2 LIMIT 10001) p) AS parked,
  (SELECT MIN(available_at) FROM {table} WHERE state = 0 AND available_at <= {now}) AS oldest_due,
  {now} AS db_now
