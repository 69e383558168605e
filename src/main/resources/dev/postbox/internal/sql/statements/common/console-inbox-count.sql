-- The console's count of an inbox's processed event ids, reading at most 10,001 rows, and the
-- oldest one's time. No params.
SELECT (SELECT COUNT(*) FROM (SELECT event_id FROM {table} LIMIT 10001) i) AS processed,
  (SELECT MIN(created_at) FROM {table}) AS oldest, {now} AS db_now
