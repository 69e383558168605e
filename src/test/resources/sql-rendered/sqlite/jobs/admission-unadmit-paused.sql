-- params: none
UPDATE postbox_jobs SET state = 3
WHERE state = 0 AND fair_tag IS NOT NULL AND leased_by IS NULL
  AND name IN (SELECT name FROM postbox_jobs_flow WHERE kind = 'name' AND paused_at IS NOT NULL)
