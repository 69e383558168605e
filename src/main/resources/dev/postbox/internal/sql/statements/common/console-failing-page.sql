-- A page of failing rows for the console, by id: rows that failed and wait for their next attempt,
-- among the 10,001 rows not due yet that are due soonest (so that a large backlog is never read
-- whole), matching the filter ({match}, as for the parked rows; {payload} too).
-- Params: the filter's values, the id the page starts after, the page's size.
SELECT id, ref, topic, listed_key, attempts, last_error, available_at, created_at{payload}
FROM (SELECT id, {ref} AS ref, {topic} AS topic, {listedKey} AS listed_key, attempts, last_error,
        leased_by, available_at, created_at{payload}
      FROM {table} WHERE {pending} AND available_at > {now}
      ORDER BY available_at LIMIT 10001) w
WHERE leased_by IS NULL AND attempts > 0 AND last_error IS NOT NULL{match} AND id > ?
ORDER BY id LIMIT ?
