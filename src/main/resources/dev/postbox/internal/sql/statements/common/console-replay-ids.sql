-- Makes these parked rows due again, attempts reset, as a replay does. Params: the ids.
UPDATE {table}
SET state = {replayedState}, attempts = 0, available_at = {now}, leased_by = NULL
WHERE state = 2 AND id IN ({ids})
