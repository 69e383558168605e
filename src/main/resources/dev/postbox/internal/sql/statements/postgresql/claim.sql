-- Claims up to {limit} due rows, oldest due first. Params: leased_by, lease millis.
-- The due rows are picked in a MATERIALIZED CTE, which runs exactly once: "id IN (subquery)" may
-- become a semi-join that re-runs the LIMITed FOR UPDATE subquery and leases more rows than the
-- LIMIT. Joined by primary key, it is planned as index probes even in the generic plan made while
-- the table was empty (pgjdbc keeps it for the connection's life); "id = ANY (ARRAY(subquery))" got
-- a sequential scan there, over every dead row of a grown table on each claim. The limit is written
-- in, not bound: a generic plan would assume 10% of the table. The lease CTE keeps the parameters
-- in the order of the other databases' claims. The CTE names hold a '$', which no validated table
-- name can, so they never clash with the table.
-- Params: leased_by, lease millis.
WITH claim$lease (lease_owner, lease_millis) AS (SELECT CAST(? AS VARCHAR), CAST(? AS BIGINT)),
claim$due (due_id, due_available_at, due_charge) AS MATERIALIZED (
  SELECT id, available_at, 1 FROM {table}
  WHERE state = 0 AND available_at <= {now}{filter}
  ORDER BY available_at, id LIMIT {limit} FOR UPDATE SKIP LOCKED)
{_lease}
