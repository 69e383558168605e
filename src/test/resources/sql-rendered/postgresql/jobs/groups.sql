-- params: how many groups
SELECT grp, COUNT(*) AS pending,
  SUM(CASE WHEN available_at <= statement_timestamp() THEN 1 ELSE 0 END) AS due,
  SUM(CASE WHEN state = 0 AND leased_by IS NOT NULL AND available_at > statement_timestamp() THEN 1 ELSE 0 END)
    AS leased
FROM postbox_jobs WHERE state IN (0, 3, 5) AND grp IS NOT NULL
GROUP BY grp ORDER BY leased DESC, pending DESC, grp LIMIT ?
