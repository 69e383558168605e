-- A page of failing rows for the console (pending, failed at least once), by id, matching its
-- filter ({match}, as for the parked rows).
-- Params: the filter's values, the id the page starts after, the page's size.
SELECT id, {ref} AS ref, {topic} AS topic, {listedKey} AS listed_key, attempts, last_error,
  available_at, created_at{payload}
FROM {table} WHERE {pending} AND attempts > 0 AND last_error IS NOT NULL{match} AND id > ?
ORDER BY id LIMIT ?
