-- params: none
SELECT
  (SELECT COUNT(*) FROM (SELECT id FROM postbox_outbox
     WHERE state = 0 AND available_at <= UTC_TIMESTAMP(6) LIMIT 10001) d) AS due,
  (SELECT COALESCE(SUM(CASE WHEN leased_by IS NOT NULL THEN 1 ELSE 0 END), 0)
   FROM (SELECT leased_by FROM postbox_outbox WHERE state = 0 AND available_at > UTC_TIMESTAMP(6)
         ORDER BY available_at LIMIT 10001) r) AS running,
  (SELECT COALESCE(SUM(CASE WHEN leased_by IS NULL AND attempts > 0 THEN 1 ELSE 0 END), 0)
   FROM (SELECT leased_by, attempts FROM postbox_outbox WHERE state = 0 AND available_at > UTC_TIMESTAMP(6)
         ORDER BY available_at LIMIT 10001) f) AS retrying,
  (SELECT COUNT(*) FROM (SELECT id FROM postbox_outbox WHERE state = 2 LIMIT 10001) p) AS parked,
  (SELECT MIN(available_at) FROM postbox_outbox WHERE state = 0 AND available_at <= UTC_TIMESTAMP(6)) AS oldest_due,
  UTC_TIMESTAMP(6) AS db_now
