-- params: none
LISTEN "postbox_outbox"
