-- Makes every parked row due again, attempts reset. No params.
UPDATE {table}
SET state = {replayedState}, attempts = 0, available_at = {now}, leased_by = NULL
WHERE state = 2
