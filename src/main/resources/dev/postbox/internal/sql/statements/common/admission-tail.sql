-- The last place in the fair order of the jobs of one group and name waiting for admission, NULL
-- if none waits: the next one joins behind it. Params: the group, the name.
SELECT MAX(fair_tag) FROM {table} WHERE state = 3 AND grp = ? AND name = ?
