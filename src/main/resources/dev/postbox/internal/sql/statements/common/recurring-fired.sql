-- Records a tick run: the next tick, the one just run and its job.
-- Params: next tick, last tick, last run, name.
UPDATE {schedules} SET next_tick = ?, last_tick = ?, last_run = ?, updated_at = {now} WHERE name = ?
