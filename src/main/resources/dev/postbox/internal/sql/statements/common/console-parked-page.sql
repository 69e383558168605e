-- A page of parked rows for the console, by id, matching its filter: {match} is nothing or ANDed
-- conditions on the topic (or job name), the key and the error text, one param each; {payload}
-- is nothing, or the payload column where the console shows payloads.
-- Params: the filter's values, the id the page starts after, the page's size.
SELECT id, {ref} AS ref, {topic} AS topic, {listedKey} AS listed_key, attempts, last_error,
  available_at, created_at{payload}
FROM {table} WHERE state = 2{match} AND id > ? ORDER BY id LIMIT ?
