-- params: the limit
SELECT id, id AS ref, name AS topic, COALESCE(running_key, dedupe_key) AS listed_key, attempts, last_error,
  available_at, created_at,
  CASE WHEN leased_by IS NOT NULL AND available_at > CAST((julianday('now') - 2440587.5) * 86400000.0 + 0.5 AS INTEGER) THEN 1 ELSE 0 END AS leased
FROM postbox_jobs WHERE state IN (0, 3, 5) AND attempts > 0 AND last_error IS NOT NULL
ORDER BY available_at, id LIMIT ?
