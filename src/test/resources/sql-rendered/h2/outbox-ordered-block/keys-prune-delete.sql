-- params: 3 keys
DELETE FROM postbox_outbox_keys WHERE msg_key IN (?, ?, ?)
