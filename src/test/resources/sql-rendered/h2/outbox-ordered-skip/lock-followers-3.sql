-- params: the 3 ids
SELECT id, attempts, claims, last_error IS NOT NULL AS failed_before, created_at, event_id, topic, msg_key, payload, headers, available_at AS due_before_claim FROM postbox_outbox
WHERE id IN (?, ?, ?) AND state = 0 AND available_at <= CURRENT_TIMESTAMP(6) FOR UPDATE
