-- params: leased_by, lease millis, the limit
WITH claim$lease (lease_owner, lease_millis) AS (SELECT CAST(? AS VARCHAR), CAST(? AS BIGINT)),
claim$due (due_id, due_available_at, due_charge) AS MATERIALIZED (
  SELECT id, available_at, 1 FROM postbox_outbox
  WHERE state = 0 AND available_at <= statement_timestamp() AND (postbox_outbox.msg_key IS NULL OR NOT EXISTS (SELECT 1 FROM postbox_outbox postbox_prior WHERE postbox_prior.msg_key = postbox_outbox.msg_key AND postbox_prior.state IN (0, 2) AND postbox_prior.id < postbox_outbox.id))
  ORDER BY id DESC LIMIT ? FOR UPDATE SKIP LOCKED)
UPDATE postbox_outbox
  SET leased_by = claim$lease.lease_owner, attempts = attempts + claim$due.due_charge,
    claims = claims + 1,
    available_at = statement_timestamp() + claim$lease.lease_millis * interval '1 millisecond'
  FROM claim$due, claim$lease WHERE id = claim$due.due_id
  RETURNING id, attempts, claims, last_error IS NOT NULL AS failed_before, created_at, event_id, topic, msg_key, payload, headers, claim$due.due_available_at AS due_before_claim, claim$due.due_charge AS charged
