-- The admitted jobs (state 0 with a fair_tag: claimable, leased or running) per group and name,
-- and how many of them no live lease holds yet (admitted, not yet claimed). No params.
SELECT grp, name, COUNT(*) AS admitted,
  SUM(CASE WHEN leased_by IS NULL OR available_at <= {now} THEN 1 ELSE 0 END) AS unclaimed
FROM {table} WHERE state = 0 AND fair_tag IS NOT NULL GROUP BY grp, name
