-- params: leased_by, lease millis, then the finish's: leased_by, claims, the 4 ids (the last one repeated up to the count)
WITH claim$lease (lease_owner, lease_millis) AS (SELECT CAST(? AS VARCHAR), CAST(? AS BIGINT)),
claim$finished AS (UPDATE postbox_jobs SET state = 1, available_at = statement_timestamp(), leased_by = NULL, dedupe_key = NULL, running_key = NULL
WHERE leased_by = ? AND claims = ? AND id IN (?, ?, ?, ?) RETURNING id AS finished$id),
claim$due (due_id, due_available_at, due_charge) AS MATERIALIZED (
  SELECT id, available_at, 1 FROM postbox_jobs
  WHERE state = 0 AND available_at <= statement_timestamp() AND (dedupe_key IS NULL OR NOT EXISTS (SELECT 1 FROM postbox_jobs running_job WHERE running_job.running_key = postbox_jobs.dedupe_key)) AND name NOT IN (SELECT name FROM postbox_jobs_flow WHERE kind = 'name' AND paused_at IS NOT NULL) AND name IN ('email', 'report')
  ORDER BY available_at, id LIMIT 500 FOR UPDATE SKIP LOCKED),
claim$claimed AS (UPDATE postbox_jobs
  SET leased_by = claim$lease.lease_owner, attempts = attempts + claim$due.due_charge,
    claims = claims + 1, running_key = COALESCE(dedupe_key, running_key), dedupe_key = NULL, due_at = available_at,
    available_at = statement_timestamp() + claim$lease.lease_millis * interval '1 millisecond'
  FROM claim$due, claim$lease WHERE id = claim$due.due_id
  RETURNING id, attempts, claims, last_error IS NOT NULL AS failed_before, created_at, name, payload, max_attempts, dedupe_key, running_key, available_at, due_at, tick_at, claim$due.due_available_at AS due_before_claim, claim$due.due_charge AS charged)
SELECT claim$claimed.*, claim$count.finished$rows
FROM (SELECT COUNT(*) AS finished$rows FROM claim$finished) claim$count
LEFT JOIN claim$claimed ON TRUE
