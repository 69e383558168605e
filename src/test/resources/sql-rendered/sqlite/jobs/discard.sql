-- params: the ref
DELETE FROM postbox_jobs WHERE state = 2 AND id = ?
