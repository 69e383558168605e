-- params: id, claims
SELECT COUNT(*) FROM postbox_jobs WHERE id = ? AND claims = ? AND state = 2
