-- params: the ref
SELECT id, id AS ref, name AS topic, COALESCE(running_key, dedupe_key) AS listed_key, state, attempts, last_error,
  leased_by, available_at, created_at, CURRENT_TIMESTAMP(6) AS db_now
FROM postbox_jobs WHERE id = ?
