-- An admission's lock (docs/jobs.md#limits-and-groups): the 'gate' row of the flow table {flow},
-- held until the admission commits, so that admissions run one at a time across dispatchers and
-- each counts the jobs admitted before it. Updates nothing if the row is missing
-- (admission-gate-row inserts it). No params.
UPDATE {flow} SET updated_at = {now} WHERE kind = 'gate' AND name = ''
