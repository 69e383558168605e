-- The declared schedules due at the step's now, each locked or skipped if another dispatcher holds
-- it. The now is read once and bound, not the database's now in this statement, so a tick found
-- due is never after the now its next tick is computed from. {names}: one ? per declared name.
-- Params: the step's now, then the names.
SELECT name, schedule, payload, next_tick, last_tick, last_run FROM {schedules} WHERE next_tick <= ? AND name IN ({names}) FOR UPDATE SKIP LOCKED
