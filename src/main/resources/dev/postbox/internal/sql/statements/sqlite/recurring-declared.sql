-- A recurring job's stored schedule, read while a dispatcher's start declares it: the step's
-- transaction holds SQLite's one write lock from its start (recurring-begin), so no row lock.
-- Params: the name.
SELECT schedule, payload, last_tick FROM {schedules} WHERE name = ?
