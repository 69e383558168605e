-- params: 3 ids
UPDATE postbox_outbox
SET state = 0, attempts = 0, available_at = CURRENT_TIMESTAMP(6), leased_by = NULL
WHERE state = 2 AND id IN (?, ?, ?)
