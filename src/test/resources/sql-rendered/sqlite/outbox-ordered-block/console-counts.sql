-- params: none
SELECT
  (SELECT COUNT(*) FROM (SELECT id FROM postbox_outbox
     WHERE state = 0 AND available_at <= CAST((julianday('now') - 2440587.5) * 86400000.0 + 0.5 AS INTEGER) LIMIT 10001) d) AS due,
  (SELECT COALESCE(SUM(CASE WHEN leased_by IS NOT NULL THEN 1 ELSE 0 END), 0)
   FROM (SELECT leased_by FROM postbox_outbox WHERE state = 0 AND available_at > CAST((julianday('now') - 2440587.5) * 86400000.0 + 0.5 AS INTEGER)
         ORDER BY available_at LIMIT 10001) r) AS running,
  (SELECT COALESCE(SUM(CASE WHEN leased_by IS NULL AND attempts > 0 THEN 1 ELSE 0 END), 0)
   FROM (SELECT leased_by, attempts FROM postbox_outbox WHERE state = 0 AND available_at > CAST((julianday('now') - 2440587.5) * 86400000.0 + 0.5 AS INTEGER)
         ORDER BY available_at LIMIT 10001) f) AS retrying,
  (SELECT COUNT(*) FROM (SELECT id FROM postbox_outbox WHERE state = 2 LIMIT 10001) p) AS parked,
  (SELECT MIN(available_at) FROM postbox_outbox WHERE state = 0 AND available_at <= CAST((julianday('now') - 2440587.5) * 86400000.0 + 0.5 AS INTEGER)) AS oldest_due,
  CAST((julianday('now') - 2440587.5) * 86400000.0 + 0.5 AS INTEGER) AS db_now
