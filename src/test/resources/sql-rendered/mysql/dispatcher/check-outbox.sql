-- params: none
SELECT id, state, attempts, claims, snoozes, available_at, leased_by, last_error, created_at, event_id, topic, msg_key, payload, headers FROM postbox_outbox WHERE 1 = 0
