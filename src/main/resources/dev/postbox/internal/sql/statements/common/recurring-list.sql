-- Every stored schedule with the state of its last run, for Dispatcher.schedules().
-- Params: none.
SELECT s.name, s.schedule, s.payload, s.next_tick, s.last_tick, s.last_run, j.state, j.attempts, j.leased_by FROM {schedules} s LEFT JOIN {table} j ON j.id = s.last_run ORDER BY s.name
