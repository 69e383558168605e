-- The ids of the parked rows matching the console's filter ({match}), oldest first: what a replay
-- or discard of every matching row acts on, and its preview. Params: the filter's values, the limit.
SELECT id FROM {table} WHERE state = 2{match} ORDER BY id LIMIT ?
