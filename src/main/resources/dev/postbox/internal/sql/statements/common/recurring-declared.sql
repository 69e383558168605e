-- A recurring job's stored schedule, locked while a dispatcher's start declares it: {schedules} is
-- the job table's name + _schedules.
-- Params: the name.
SELECT schedule, payload, last_tick FROM {schedules} WHERE name = ? FOR UPDATE
