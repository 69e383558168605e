-- params: none
ANALYZE postbox_jobs
