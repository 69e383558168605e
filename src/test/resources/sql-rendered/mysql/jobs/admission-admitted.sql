-- params: none
SELECT grp, name, COUNT(*) AS admitted,
  SUM(CASE WHEN leased_by IS NULL OR available_at <= UTC_TIMESTAMP(6) THEN 1 ELSE 0 END) AS unclaimed
FROM postbox_jobs WHERE state = 0 AND fair_tag IS NOT NULL GROUP BY grp, name
