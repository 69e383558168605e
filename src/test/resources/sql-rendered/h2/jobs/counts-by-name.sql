-- params: none
SELECT name, COUNT(*) AS pending, SUM(CASE WHEN available_at <= CURRENT_TIMESTAMP(6) THEN 1 ELSE 0 END) AS due, SUM(CASE WHEN available_at > CURRENT_TIMESTAMP(6) AND leased_by IS NOT NULL THEN 1 ELSE 0 END) AS leased, MIN(CASE WHEN available_at <= CURRENT_TIMESTAMP(6) THEN available_at END) AS oldest_due FROM postbox_jobs WHERE state = 0 GROUP BY name ORDER BY name
