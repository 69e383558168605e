-- params: none
SELECT leased_by, COUNT(*) AS leased, MIN(available_at) AS soonest_end
FROM (SELECT leased_by, available_at FROM postbox_jobs
      WHERE state IN (0, 3, 5) AND available_at > CURRENT_TIMESTAMP(6) ORDER BY available_at LIMIT 10001) l
WHERE leased_by IS NOT NULL
GROUP BY leased_by ORDER BY leased_by
