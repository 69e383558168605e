-- claimRuns that first finishes delivered rows, as claimAfterFinish.
-- Params: leased_by, lease millis, the far heads' ids (an array), how many rows at most, then the
-- finish's: leased_by, claims, the ids.
WITH claim$lease (lease_owner, lease_millis, far_ids, room) AS (
  SELECT CAST(? AS VARCHAR), CAST(? AS BIGINT), CAST(? AS BIGINT[]), CAST(? AS INTEGER)),
claim$finished AS ({finish} RETURNING id AS finished$id),
{_heads},
{_runs},
claim$claimed AS ({_lease})
SELECT claim$claimed.*, claim$count.finished$rows, claim$count.window$rows
FROM (SELECT (SELECT COUNT(*) FROM claim$finished) AS finished$rows,
  (SELECT COUNT(*) FROM claim$window) AS window$rows) claim$count
LEFT JOIN claim$claimed ON TRUE
