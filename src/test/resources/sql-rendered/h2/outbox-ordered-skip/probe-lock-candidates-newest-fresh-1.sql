-- params: the 1 ids, the limit
SELECT id, attempts, claims, last_error IS NOT NULL AS failed_before, created_at, event_id, topic, msg_key, payload, headers, available_at AS due_before_claim FROM postbox_outbox
WHERE id IN (?) AND state = 0 AND available_at <= CURRENT_TIMESTAMP(6) AND (postbox_outbox.msg_key IS NULL OR NOT EXISTS (SELECT 1 FROM postbox_outbox postbox_prior WHERE postbox_prior.msg_key = postbox_outbox.msg_key AND postbox_prior.state = 0 AND postbox_prior.id < postbox_outbox.id))
ORDER BY id DESC LIMIT ? FOR UPDATE SKIP LOCKED
