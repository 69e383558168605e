-- The admitted jobs (state 0 with a fair_tag: claimable, leased or running) per group and name.
-- No params.
SELECT grp, name, COUNT(*) AS admitted
FROM {table} WHERE state = 0 AND fair_tag IS NOT NULL GROUP BY grp, name
