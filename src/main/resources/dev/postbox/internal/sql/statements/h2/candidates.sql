-- First step of a claim by id: the ids of up to {window} due rows, oldest due first, but those
-- {excluded} (candidates other claimers held), read without locks. Params: the excluded.
-- Ordered by the claim index's own columns, state first: H2 2.5 does not see that the index is in
-- due order once state = 0 is fixed, and read and sorted every due row ("index sorted" in EXPLAIN
-- now). Params: the excluded ids.
SELECT id{windowKey} FROM {table}
WHERE state = 0 AND available_at <= {now}{filter}{excluded}
ORDER BY state, available_at, id LIMIT {window}
