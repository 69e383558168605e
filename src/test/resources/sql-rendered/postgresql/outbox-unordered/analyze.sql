-- params: none
ANALYZE postbox_outbox
