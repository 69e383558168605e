-- params: the limit
SELECT p.msg_key AS blocked_key, p.id, p.event_id AS ref, p.topic AS topic, p.attempts,
  p.last_error, p.created_at,
  (SELECT COUNT(*) FROM postbox_outbox w WHERE w.msg_key = p.msg_key AND w.state = 0) AS waiting
FROM postbox_outbox p
WHERE p.state = 2 AND p.msg_key IS NOT NULL AND NOT EXISTS (
  SELECT 1 FROM postbox_outbox e WHERE e.msg_key = p.msg_key AND e.state = 2 AND e.id < p.id)
ORDER BY p.id LIMIT ?
