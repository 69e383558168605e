-- params: none
SELECT MIN(fair_tag) FROM postbox_jobs WHERE state = 3
