-- params: none
VACUUM (ANALYZE) postbox_jobs
