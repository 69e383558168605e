-- params: none
SELECT
  (SELECT COUNT(*) FROM postbox_outbox WHERE state = 0) AS pending,
  (SELECT COUNT(*) FROM postbox_outbox
   WHERE state = 0 AND available_at <= UTC_TIMESTAMP(6)) AS ready,
  (SELECT COUNT(*) FROM postbox_outbox
   WHERE state = 0 AND available_at > UTC_TIMESTAMP(6) AND leased_by IS NOT NULL)
    AS leased,
  (SELECT COUNT(*) FROM postbox_outbox WHERE state = 2) AS parked,
  (SELECT MIN(created_at) FROM postbox_outbox WHERE state = 0) AS oldest,
  (SELECT COUNT(DISTINCT msg_key) FROM postbox_outbox WHERE state = 2 AND msg_key IS NOT NULL) AS blocked_keys,
  (SELECT COUNT(*) FROM postbox_outbox postbox_parked
 JOIN postbox_outbox postbox_waiting ON postbox_waiting.msg_key = postbox_parked.msg_key
   AND postbox_waiting.state = 0 AND postbox_waiting.id > postbox_parked.id
   AND postbox_waiting.available_at <= UTC_TIMESTAMP(6)
 WHERE postbox_parked.state = 2 AND NOT EXISTS (
   SELECT 1 FROM postbox_outbox postbox_prior WHERE postbox_prior.msg_key = postbox_parked.msg_key
     AND postbox_prior.state = 2 AND postbox_prior.id < postbox_parked.id)) AS blocked,
  UTC_TIMESTAMP(6) AS db_now
