-- With claimHeads: how many rows are due, counted up to {window}. No params.
-- Served by the claim index alone. No params.
SELECT COUNT(*) FROM (
  SELECT 1 FROM {table} WHERE state = 0 AND available_at <= {now} LIMIT {window})
