-- params: none
SELECT msg_key FROM postbox_outbox_keys WHERE 1 = 0
