-- params: 3 ids
DELETE FROM postbox_jobs WHERE state = 2 AND id IN (?, ?, ?)
