-- Forgets the entries not refreshed for two leases and this instance's own. Params: instance id,
-- -2 leases in millis.
DELETE FROM {table} WHERE instance_id = ? OR seen_at < {nowPlusMillis}
