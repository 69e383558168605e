-- params: none
SELECT MIN(fair_tag) FROM postbox_jobs WHERE state = 5 AND available_at <= CAST((julianday('now') - 2440587.5) * 86400000.0 + 0.5 AS INTEGER)
