-- params: none
SELECT 1 FROM postbox_jobs WHERE state IN (3, 5) AND available_at <= CAST((julianday('now') - 2440587.5) * 86400000.0 + 0.5 AS INTEGER) LIMIT 1
