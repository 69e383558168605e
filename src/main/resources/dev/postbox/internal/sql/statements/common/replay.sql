-- Makes the parked row with {ref} = ? due again, attempts reset. Params: the ref.
UPDATE {table}
SET state = {replayedState}, attempts = 0, available_at = {now}, leased_by = NULL
WHERE state = 2 AND {ref} = ?
