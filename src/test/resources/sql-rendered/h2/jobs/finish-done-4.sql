-- params: leased_by, claims, the 4 ids (the last one repeated up to the count)
UPDATE postbox_jobs SET state = 1, available_at = CURRENT_TIMESTAMP(6), leased_by = NULL, dedupe_key = NULL, running_key = NULL
WHERE leased_by = ? AND claims = ? AND id IN (?, ?, ?, ?)
