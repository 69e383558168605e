-- Extends the leases of rows still held. Params: lease millis, leased_by, the ids.
UPDATE {table} SET available_at = {nowPlusMillis}
WHERE state = 0 AND leased_by = ? AND id IN ({ids})
