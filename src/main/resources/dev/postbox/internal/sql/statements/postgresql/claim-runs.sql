-- For a table ordered by key, where the database does it in one statement: claim, whose rows are
-- heads of their keys, plus the runs behind the keyed heads: the next due rows of the key, up to
-- the first that is not due, shared so that all rows come to at most {limit}. Params: leased_by,
-- lease millis.
-- Heads: the claim looks for heads among the first {window} due rows only, so that a claim costs
-- the same however many rows wait behind busy heads (unbounded, a claim over 10 busy keys read all
-- 50,000 rows behind them, 100 ms each), and among the far heads it is given: each key's oldest
-- pending row, found by a walk over the keys ({@link #walkKeys}) when the window holds too few. Of
-- a key's rows in the window only the oldest can be its head (the others have it pending before
-- them), so only that one is checked, with one probe of the key index. Every candidate passes the
-- same checks under its row lock as before: pending, due, the head of its key. The statement
-- returns the window's size on every row (a row with a NULL id only carries it), so that the claim
-- knows whether heads may wait beyond it. Runs: each keyed head brings the next rows of its key,
-- read by the key index in id order up to the first that is not due. Every head gets an equal share
-- of the batch ((limit - 1) / heads rows), so one long key does not crowd out the others; the runs
-- are then cut to the batch, the first rows behind every head before the second ones. The heads'
-- locks keep the runs theirs: no other claim can take a row whose key has an older pending row (the
-- {filter}). The constant LIMITs change nothing but the planner's estimates: a LIMIT computed at
-- run time is assumed to keep a tenth of a key's rows, and on a large table (500,000 rows, 10 keys)
-- the estimated cost passed jit_above_cost, so each claim spent tens of milliseconds compiling, and
-- the claimed rows were joined by a merge join over the whole primary key instead of probes.
-- Params: leased_by, lease millis, the far heads' ids (an array), how many rows at most.
WITH claim$lease (lease_owner, lease_millis, far_ids, room) AS (
  SELECT CAST(? AS VARCHAR), CAST(? AS BIGINT), CAST(? AS BIGINT[]), CAST(? AS INTEGER)),
{_heads},
{_runs},
claim$claimed AS ({_lease})
SELECT claim$claimed.*, claim$count.window$rows
FROM (SELECT COUNT(*) AS window$rows FROM claim$window) claim$count
LEFT JOIN claim$claimed ON TRUE
