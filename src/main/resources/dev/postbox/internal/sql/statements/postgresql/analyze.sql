-- Refreshes the planner's statistics of the table, when stats-stale.sql says they are missing or
-- far behind: a claim planned without them reads every due row.
ANALYZE {table}
