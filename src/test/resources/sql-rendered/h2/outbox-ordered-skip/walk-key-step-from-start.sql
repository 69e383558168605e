-- params: none
SELECT msg_key AS walk_key, id AS walk_id,
  CASE WHEN available_at <= CURRENT_TIMESTAMP(6) THEN 1 ELSE 0 END AS walk_due
FROM postbox_outbox WHERE msg_key >= '' AND state + 0 = 0
ORDER BY msg_key, state, id LIMIT 1
