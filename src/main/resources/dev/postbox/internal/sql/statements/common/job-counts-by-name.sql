-- Jobs.statsByName: the pending jobs per name, how many are due, leased, and the oldest due one's
-- time. Reads every pending row, as stats does. No params.
SELECT name, COUNT(*) AS pending, SUM(CASE WHEN available_at <= {now} THEN 1 ELSE 0 END) AS due, SUM(CASE WHEN available_at > {now} AND leased_by IS NOT NULL THEN 1 ELSE 0 END) AS leased, MIN(CASE WHEN available_at <= {now} THEN available_at END) AS oldest_due FROM {table} WHERE state = 0 GROUP BY name ORDER BY name
