-- The entries of the dispatchers seen within a lease. Params: -lease millis.
SELECT instance_id, settings, started_at FROM {table} WHERE seen_at >= {nowPlusMillis}
