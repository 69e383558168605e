-- As admission-tail, for the jobs of a limited name without a group. Params: the name.
SELECT MAX(fair_tag) FROM {table} WHERE state = 3 AND grp IS NULL AND name = ?
