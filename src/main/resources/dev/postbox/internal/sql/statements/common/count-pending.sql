-- Rows not finished and not parked. No params.
SELECT COUNT(*) FROM {table} WHERE {pending}
