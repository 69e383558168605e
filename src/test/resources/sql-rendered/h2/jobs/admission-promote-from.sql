-- params: none
SELECT MIN(fair_tag) FROM postbox_jobs WHERE state = 5 AND available_at <= CURRENT_TIMESTAMP(6)
