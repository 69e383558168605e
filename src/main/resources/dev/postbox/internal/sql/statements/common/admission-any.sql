-- Whether a job waits for admission, or will once promoted (state 5, due): read before an admission
-- takes the gate, so that a table without such jobs costs a dispatcher one indexed read, and no
-- write, per look. No params.
SELECT 1 FROM {table} WHERE state IN (3, 5) AND available_at <= {now} LIMIT 1
