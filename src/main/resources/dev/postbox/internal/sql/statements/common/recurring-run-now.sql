-- Makes a stored schedule's next run due now (the console's "run now"): its next tick moves to
-- now; a run of it still unfinished then delays it, as it delays any tick. Params: the name.
UPDATE {schedules} SET next_tick = {now}, updated_at = {now} WHERE name = ? AND next_tick > {now}
