-- params: the id
DELETE FROM postbox_jobs WHERE id = ? AND state IN (0, 2, 3, 5) AND leased_by IS NULL
