-- params: none
SELECT COUNT(*) FROM postbox_jobs WHERE state = 0
