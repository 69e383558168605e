-- params: none
SELECT pg_notify('postbox_jobs', '')
