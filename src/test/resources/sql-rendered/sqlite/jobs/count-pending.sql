-- params: none
SELECT COUNT(*) FROM postbox_jobs WHERE state IN (0, 3, 5)
