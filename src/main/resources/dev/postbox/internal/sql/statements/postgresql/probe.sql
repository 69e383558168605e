-- An outage probe: claims up to ? due rows, newest first, but those {excluded}. Params: leased_by,
-- lease millis, the excluded ids, the limit.
-- Params: leased_by, lease millis, the excluded ids, the limit.
WITH claim$lease (lease_owner, lease_millis) AS (SELECT CAST(? AS VARCHAR), CAST(? AS BIGINT)),
claim$due (due_id, due_available_at, due_charge) AS MATERIALIZED (
  SELECT id, available_at, 1 FROM {table}
  WHERE state = 0 AND available_at <= {now}{filter}{excluded}
  ORDER BY id DESC LIMIT ? FOR UPDATE SKIP LOCKED)
{_lease}
