-- params: the 3 ids, the limit
SELECT id, attempts, claims, last_error IS NOT NULL AS failed_before, created_at, event_id, topic, msg_key, payload, headers, available_at AS due_before_claim FROM postbox_outbox FORCE INDEX (PRIMARY)
WHERE id IN (?, ?, ?) AND state = 0 AND available_at <= UTC_TIMESTAMP(6) AND (postbox_outbox.msg_key IS NULL OR (postbox_outbox.id = (SELECT postbox_first.id FROM postbox_outbox postbox_first IGNORE INDEX FOR ORDER BY (PRIMARY) WHERE postbox_first.msg_key = postbox_outbox.msg_key AND postbox_first.state = 0 ORDER BY postbox_first.id LIMIT 1) AND NOT EXISTS (SELECT 1 FROM postbox_outbox postbox_prior WHERE postbox_prior.msg_key = postbox_outbox.msg_key AND postbox_prior.state = 2 AND postbox_prior.id < postbox_outbox.id)))
LIMIT ? FOR UPDATE SKIP LOCKED
