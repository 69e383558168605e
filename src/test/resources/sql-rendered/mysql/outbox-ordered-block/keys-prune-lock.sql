-- params: 3 keys
SELECT msg_key FROM postbox_outbox_keys WHERE msg_key IN (?, ?, ?) FOR UPDATE SKIP LOCKED
