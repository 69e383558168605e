-- Jobs.busiestGroups: the groups with the most jobs running (leased), then the most pending, each
-- with its pending (waiting for admission, admitted, leased), due and leased jobs. Reads every
-- pending job with a group. Params: how many groups.
SELECT grp, COUNT(*) AS pending,
  SUM(CASE WHEN available_at <= {now} THEN 1 ELSE 0 END) AS due,
  SUM(CASE WHEN state = 0 AND leased_by IS NOT NULL AND available_at > {now} THEN 1 ELSE 0 END)
    AS leased
FROM {table} WHERE state IN (0, 3, 5) AND grp IS NOT NULL
GROUP BY grp ORDER BY leased DESC, pending DESC, grp LIMIT ?
