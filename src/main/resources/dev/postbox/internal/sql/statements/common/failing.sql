-- Up to ? failing rows: pending ones that failed at least once (an outage refund records no error,
-- and a replay resets the attempts), soonest available_at first, with listed_key and leased: 1 if a
-- lease on the row has not run out yet (its available_at is that lease's end). Params: the limit.
SELECT id, {ref} AS ref, {topic} AS topic, {listedKey} AS listed_key, attempts, last_error,
  available_at, created_at,
  CASE WHEN leased_by IS NOT NULL AND available_at > {now} THEN 1 ELSE 0 END AS leased
FROM {table} WHERE {pending} AND attempts > 0 AND last_error IS NOT NULL
ORDER BY available_at, id LIMIT ?
