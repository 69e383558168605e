-- params: none
VACUUM (ANALYZE) postbox_outbox
