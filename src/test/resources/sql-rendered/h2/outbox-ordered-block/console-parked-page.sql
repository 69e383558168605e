-- params: topic, key, error text, after id, page size
SELECT id, event_id AS ref, topic AS topic, msg_key AS listed_key, attempts, last_error,
  available_at, created_at, SUBSTR(payload, 1, 4097) AS payload
FROM postbox_outbox WHERE state = 2 AND topic = ? AND msg_key = ? AND INSTR(last_error, ?) > 0 AND id > ? ORDER BY id LIMIT ?
