-- params: none
LISTEN "postbox_jobs"
