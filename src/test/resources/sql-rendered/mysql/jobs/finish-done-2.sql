-- params: leased_by, claims, the 2 ids (the last one repeated up to the count)
UPDATE postbox_jobs SET state = 1, available_at = UTC_TIMESTAMP(6), leased_by = NULL, dedupe_key = NULL, running_key = NULL
WHERE leased_by = ? AND claims = ? AND id IN (?, ?)
