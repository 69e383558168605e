-- params: the shift
UPDATE postbox_jobs SET state = 3, fair_tag = fair_tag + ? WHERE state = 5 AND available_at <= CAST((julianday('now') - 2440587.5) * 86400000.0 + 0.5 AS INTEGER)
