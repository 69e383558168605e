-- Deletes up to ? inbox rows older than the retention (on an inbox table: {table} only). Params:
-- -retention millis, the limit.
-- Params: -retention millis, the limit.
DELETE FROM {table}
WHERE created_at < {nowPlusMillis} LIMIT ?
