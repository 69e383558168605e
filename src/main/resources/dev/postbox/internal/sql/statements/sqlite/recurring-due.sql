-- The declared schedules due at the step's now; the step holds SQLite's one write lock from its
-- start (recurring-begin), so no row lock. {names}: one ? per declared name.
-- Params: the step's now, then the names.
SELECT name, schedule, payload, next_tick, last_tick, last_run FROM {schedules} WHERE next_tick <= ? AND name IN ({names})
