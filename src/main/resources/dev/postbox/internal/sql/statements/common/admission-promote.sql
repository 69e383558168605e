-- Jobs waiting for admission whose time has come (delayed, backing off after a failure, snoozed,
-- released or replayed: state 5) join the waiting ones (state 3) at the front of the fair order,
-- having waited: their places shifted by one amount, so that the least comes to the front and
-- each keeps its distance behind it (a group's burst of 10,000 retries stays spread out and does not
-- fill the admissions' window). Params: the shift (the front's place minus admission-promote-from).
UPDATE {table} SET state = 3, fair_tag = fair_tag + ? WHERE state = 5 AND available_at <= {now}
