-- params: 3 ids
DELETE FROM postbox_outbox WHERE state = 2 AND id IN (?, ?, ?)
