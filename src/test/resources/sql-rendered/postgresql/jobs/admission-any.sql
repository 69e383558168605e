-- params: none
SELECT 1 FROM postbox_jobs WHERE state IN (3, 5) AND available_at <= statement_timestamp() LIMIT 1
