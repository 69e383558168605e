-- params: the 1 ids, the limit
SELECT id, attempts, claims, last_error IS NOT NULL AS failed_before, created_at, event_id, topic, msg_key, payload, headers, available_at AS due_before_claim FROM postbox_outbox FORCE INDEX (PRIMARY)
WHERE id IN (?) AND state = 0 AND available_at <= UTC_TIMESTAMP(6)
ORDER BY id DESC LIMIT ? FOR UPDATE SKIP LOCKED
