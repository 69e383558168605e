-- Removes a stored schedule.
-- Params: the name.
DELETE FROM {schedules} WHERE name = ?
