-- The least place among the jobs about to join the waiting ones (admission-promote), NULL if none.
-- No params.
SELECT MIN(fair_tag) FROM {table} WHERE state = 5 AND available_at <= {now}
