-- The earliest tick of the declared schedules after a time: when the next step is due.
-- {names}: one ? per declared name.
-- Params: a time, then the names.
SELECT MIN(next_tick) AS soonest FROM {schedules} WHERE next_tick > ? AND name IN ({names})
