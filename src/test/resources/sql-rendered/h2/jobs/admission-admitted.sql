-- params: none
SELECT grp, name, COUNT(*) AS admitted
FROM postbox_jobs WHERE state = 0 AND fair_tag IS NOT NULL GROUP BY grp, name
