-- Stores a schedule whose expression changed: its next tick is computed again.
-- Params: schedule, payload, next tick, name.
UPDATE {schedules} SET schedule = ?, payload = ?, next_tick = ?, updated_at = {now} WHERE name = ?
