-- params: the wait (negative millis)
SELECT name, COUNT(*) AS waiting, MIN(available_at) AS since FROM (SELECT name, available_at FROM postbox_jobs WHERE state = 0 AND available_at <= TIMESTAMPADD(MICROSECOND, ? * 1000, UTC_TIMESTAMP(6)) ORDER BY available_at, id LIMIT 10000) overdue WHERE name NOT IN ('email', 'report') GROUP BY name
