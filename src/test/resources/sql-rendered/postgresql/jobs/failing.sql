-- params: the limit
SELECT id, id AS ref, name AS topic, COALESCE(running_key, dedupe_key) AS listed_key, attempts, last_error,
  available_at, created_at,
  CASE WHEN leased_by IS NOT NULL AND available_at > statement_timestamp() THEN 1 ELSE 0 END AS leased
FROM postbox_jobs WHERE state IN (0, 3, 5) AND attempts > 0 AND last_error IS NOT NULL
ORDER BY available_at, id LIMIT ?
