-- A dispatcher's entry: how it orders the outbox, started and seen now. Params: instance id,
-- settings.
INSERT INTO {table} (instance_id, settings, started_at, seen_at) VALUES (?, ?, {now}, {now})
