-- Stores a schedule whose payload alone changed: its ticks stay.
-- Params: payload, name.
UPDATE {schedules} SET payload = ?, updated_at = {now} WHERE name = ?
