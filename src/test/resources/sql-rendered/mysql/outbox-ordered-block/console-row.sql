-- params: the ref
SELECT id, event_id AS ref, topic AS topic, msg_key AS listed_key, state, attempts, last_error,
  leased_by, available_at, created_at, UTC_TIMESTAMP(6) AS db_now
FROM postbox_outbox WHERE event_id = ?
