-- params: the group, the name
SELECT MAX(fair_tag) FROM postbox_jobs WHERE state = 3 AND grp = ? AND name = ?
