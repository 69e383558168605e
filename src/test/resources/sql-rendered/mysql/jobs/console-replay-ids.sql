-- params: 3 ids
UPDATE postbox_jobs
SET state = CASE WHEN fair_tag IS NULL THEN 0 ELSE 5 END, attempts = 0, available_at = UTC_TIMESTAMP(6), leased_by = NULL
WHERE state = 2 AND id IN (?, ?, ?)
