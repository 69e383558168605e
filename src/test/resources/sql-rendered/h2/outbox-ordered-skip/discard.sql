-- params: the ref
DELETE FROM postbox_outbox WHERE state = 2 AND event_id = ?
