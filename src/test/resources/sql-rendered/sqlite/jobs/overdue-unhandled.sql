-- params: the wait (negative millis)
SELECT name, COUNT(*) AS waiting, MIN(available_at) AS since FROM (SELECT name, available_at FROM postbox_jobs WHERE state = 0 AND available_at <= (CAST((julianday('now') - 2440587.5) * 86400000.0 + 0.5 AS INTEGER) + ?) ORDER BY available_at, id LIMIT 10000) overdue WHERE name NOT IN ('email', 'report') GROUP BY name
