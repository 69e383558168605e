-- Moves a schedule's next tick without a run (a run still going, a tick that is not due yet).
-- Params: next tick, name.
UPDATE {schedules} SET next_tick = ?, updated_at = {now} WHERE name = ?
