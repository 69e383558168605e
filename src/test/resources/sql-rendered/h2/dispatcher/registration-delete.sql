-- params: instance id
DELETE FROM postbox_outbox_dispatchers WHERE instance_id = ?
