-- params: none
SELECT grp, name, COUNT(*) AS admitted,
  SUM(CASE WHEN leased_by IS NULL OR available_at <= CAST((julianday('now') - 2440587.5) * 86400000.0 + 0.5 AS INTEGER) THEN 1 ELSE 0 END) AS unclaimed
FROM postbox_jobs WHERE state = 0 AND fair_tag IS NOT NULL GROUP BY grp, name
