-- params: leased_by, lease millis, the far heads' ids (an array), how many rows at most, then the finish's: leased_by, claims, the 2 ids (the last one repeated up to the count)
WITH claim$lease (lease_owner, lease_millis, far_ids, room) AS (
  SELECT CAST(? AS VARCHAR), CAST(? AS BIGINT), CAST(? AS BIGINT[]), CAST(? AS INTEGER)),
claim$finished AS (DELETE FROM postbox_outbox WHERE leased_by = ? AND claims = ? AND id IN (?, ?) RETURNING id AS finished$id),
claim$window (window_id, window_key) AS MATERIALIZED (
    SELECT id, msg_key FROM postbox_outbox WHERE state = 0 AND available_at <= statement_timestamp()
    ORDER BY available_at, id LIMIT 1000),
  claim$heads (head_id, head_key, head_at) AS MATERIALIZED (
    SELECT id, msg_key, available_at FROM postbox_outbox
    WHERE id = ANY (ARRAY(
        SELECT window_id FROM claim$window WHERE window_key IS NULL
        UNION ALL SELECT MIN(window_id) FROM claim$window
          WHERE window_key IS NOT NULL GROUP BY window_key
        UNION ALL SELECT unnest(far_ids) FROM claim$lease))
      AND state = 0 AND available_at <= statement_timestamp() AND (postbox_outbox.msg_key IS NULL OR NOT EXISTS (SELECT 1 FROM postbox_outbox postbox_prior WHERE postbox_prior.msg_key = postbox_outbox.msg_key AND postbox_prior.state IN (0, 2) AND postbox_prior.id < postbox_outbox.id AND postbox_prior.id NOT IN (SELECT finished$id FROM claim$finished)))
    ORDER BY available_at, id LIMIT 500 FOR UPDATE SKIP LOCKED),
claim$next (next_id, next_at, next_pos, head_at, head_id) AS MATERIALIZED (
    SELECT n.id, n.available_at, n.pos, h.head_at, h.head_id FROM claim$heads h CROSS JOIN LATERAL (
      SELECT f.id, f.available_at, row_number() OVER (ORDER BY f.id) AS pos,
        bool_and(f.available_at <= statement_timestamp()) OVER (ORDER BY f.id) AS ready
      FROM (
        SELECT id, available_at FROM (
          SELECT id, available_at FROM postbox_outbox claim$follower
          WHERE claim$follower.msg_key = h.head_key AND claim$follower.state = 0
            AND claim$follower.id > h.head_id
          ORDER BY claim$follower.id LIMIT 500) claim$capped
        LIMIT (SELECT (500 - 1) / GREATEST(COUNT(*), 1) FROM claim$heads)) f) n
    WHERE h.head_key IS NOT NULL AND n.ready),
  claim$due (due_id, due_available_at, due_charge) AS MATERIALIZED (
    SELECT due_id, due_available_at, due_charge FROM (
      SELECT head_id AS due_id, head_at AS due_available_at, 1 AS due_charge FROM claim$heads
      UNION ALL
      (SELECT next_id, next_at, 0 FROM claim$next ORDER BY next_pos, head_at, head_id
       LIMIT 500 - (SELECT COUNT(*) FROM claim$heads))) claim$all
    LIMIT (SELECT room FROM claim$lease)),
claim$claimed AS (UPDATE postbox_outbox
  SET leased_by = claim$lease.lease_owner, attempts = attempts + claim$due.due_charge,
    claims = claims + 1,
    available_at = statement_timestamp() + claim$lease.lease_millis * interval '1 millisecond'
  FROM claim$due, claim$lease WHERE id = claim$due.due_id
  RETURNING id, attempts, claims, last_error IS NOT NULL AS failed_before, created_at, event_id, topic, msg_key, payload, headers, claim$due.due_available_at AS due_before_claim, claim$due.due_charge AS charged)
SELECT claim$claimed.*, claim$count.finished$rows, claim$count.window$rows
FROM (SELECT (SELECT COUNT(*) FROM claim$finished) AS finished$rows,
  (SELECT COUNT(*) FROM claim$window) AS window$rows) claim$count
LEFT JOIN claim$claimed ON TRUE
