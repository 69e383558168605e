-- One row of a table by its ref (an outbox's event id, a job's id), whatever its state, for the
-- console's "was it delivered, when, after how many attempts" (a delivered row is there while the
-- outbox keeps delivered rows). Params: the ref.
SELECT id, {ref} AS ref, {topic} AS topic, {listedKey} AS listed_key, state, attempts, last_error,
  leased_by, available_at, created_at, {now} AS db_now
FROM {table} WHERE {ref} = ?
