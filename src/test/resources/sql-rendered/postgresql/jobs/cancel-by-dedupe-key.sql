-- params: the key, the key
DELETE FROM postbox_jobs WHERE (dedupe_key = ? OR running_key = ?) AND state IN (0, 2, 3, 5) AND leased_by IS NULL
