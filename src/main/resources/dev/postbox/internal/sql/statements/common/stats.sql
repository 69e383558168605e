-- Counts of pending rows, of those whose time has come (ready), leased and parked rows, the oldest
-- pending row's time, the blocked keys ({blockedKeys}, an expression), the ready rows waiting
-- behind them ({blocked}, an expression; the due rows are the ready ones but those) and now. No
-- params.
SELECT
  (SELECT COUNT(*) FROM {table} WHERE {pending}) AS pending,
  (SELECT COUNT(*) FROM {table}
   WHERE {pending} AND available_at <= {now}) AS ready,
  (SELECT COUNT(*) FROM {table}
   WHERE {pending} AND available_at > {now} AND leased_by IS NOT NULL)
    AS leased,
  (SELECT COUNT(*) FROM {table} WHERE state = 2) AS parked,
  (SELECT MIN(created_at) FROM {table} WHERE {pending}) AS oldest,
  {blockedKeys} AS blocked_keys,
  {blocked} AS blocked,
  {now} AS db_now
