-- params: topic, key, error text, after id, page size
SELECT id, ref, topic, listed_key, attempts, last_error, available_at, created_at, SUBSTR(payload, 1, 4097) AS payload
FROM (SELECT id, event_id AS ref, topic AS topic, msg_key AS listed_key, attempts, last_error,
        leased_by, available_at, created_at, SUBSTR(payload, 1, 4097) AS payload
      FROM postbox_outbox WHERE state = 0 AND available_at > CAST((julianday('now') - 2440587.5) * 86400000.0 + 0.5 AS INTEGER)
      ORDER BY available_at LIMIT 10001) w
WHERE leased_by IS NULL AND attempts > 0 AND last_error IS NOT NULL AND topic = ? AND listed_key = ? AND INSTR(last_error, ?) > 0 AND id > ?
ORDER BY id LIMIT ?
