-- Deletes up to ? done rows past retention. Params: -retention millis, the limit.
-- MySQL forbids a subquery on the table a DELETE deletes from; DELETE … LIMIT is its own form.
-- Params: -retention millis, the limit.
DELETE FROM {table}
WHERE state = 1 AND available_at < {nowPlusMillis}
LIMIT ?
