-- params: instance id
UPDATE postbox_outbox_dispatchers SET seen_at = UTC_TIMESTAMP(6) WHERE instance_id = ?
