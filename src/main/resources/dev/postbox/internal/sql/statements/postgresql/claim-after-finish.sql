-- claim that first finishes delivered rows ({finish}: delete or done) in the same statement; every
-- row returned has finished$rows, and a row with a NULL id only carries it. Params: leased_by,
-- lease millis, then the finish's.
-- Rows finished here are leased by this instance, so they are not due and the claim cannot pick
-- them (should a lease have run out meanwhile, the claim skips the row this very statement deletes,
-- and the fenced finish counts it as lost). The count comes from a LEFT JOIN so that it arrives
-- even when nothing is claimed.
-- Params: leased_by, lease millis, then the finish's: leased_by, claims, the ids.
WITH claim$lease (lease_owner, lease_millis) AS (SELECT CAST(? AS VARCHAR), CAST(? AS BIGINT)),
claim$finished AS ({finish} RETURNING id AS finished$id),
claim$due (due_id, due_available_at, due_charge) AS MATERIALIZED (
  SELECT id, available_at, 1 FROM {table}
  WHERE state = 0 AND available_at <= {now}{filter}
  ORDER BY available_at, id LIMIT {limit} FOR UPDATE SKIP LOCKED),
claim$claimed AS ({_lease})
SELECT claim$claimed.*, claim$count.finished$rows
FROM (SELECT COUNT(*) AS finished$rows FROM claim$finished) claim$count
LEFT JOIN claim$claimed ON TRUE
