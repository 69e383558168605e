-- Jobs waiting for admission whose time has come (delayed, backing off after a failure, snoozed,
-- released or replayed: state 5) join the waiting ones (state 3) at the front of the fair order,
-- having waited. Params: the front's place (the first fair_tag of the admission's window, or 0).
UPDATE {table} SET state = 3, fair_tag = ? WHERE state = 5 AND available_at <= {now}
