-- params: leased_by, claims, the 2 ids (the last one repeated up to the count)
UPDATE postbox_jobs SET state = 1, available_at = CAST((julianday('now') - 2440587.5) * 86400000.0 + 0.5 AS INTEGER), leased_by = NULL, dedupe_key = NULL, running_key = NULL
WHERE leased_by = ? AND claims = ? AND id IN (?, ?)
