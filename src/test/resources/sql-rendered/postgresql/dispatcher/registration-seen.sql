-- params: instance id
UPDATE postbox_outbox_dispatchers SET seen_at = statement_timestamp() WHERE instance_id = ?
