-- Stores a schedule declared for the first time.
-- Params: name, schedule, payload, next tick.
INSERT INTO {schedules} (name, schedule, payload, next_tick, updated_at) VALUES (?, ?, ?, ?, {now})
