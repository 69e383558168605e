-- Deletes up to ? done rows past retention. Params: -retention millis, the limit.
DELETE FROM {table} WHERE id IN (
  SELECT id FROM {table}
  WHERE state = 1 AND available_at < {nowPlusMillis}
  LIMIT ?)
