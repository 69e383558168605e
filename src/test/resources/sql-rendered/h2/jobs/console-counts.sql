-- params: none
SELECT
  (SELECT COUNT(*) FROM (SELECT id FROM postbox_jobs
     WHERE state IN (0, 3, 5) AND available_at <= CURRENT_TIMESTAMP(6) LIMIT 10001) d) AS due,
  (SELECT COUNT(*) FROM (SELECT id FROM postbox_jobs
     WHERE state IN (0, 3, 5) AND available_at > CURRENT_TIMESTAMP(6) AND leased_by IS NOT NULL LIMIT 10001) r) AS running,
  (SELECT COUNT(*) FROM (SELECT id FROM postbox_jobs
     WHERE state IN (0, 3, 5) AND available_at > CURRENT_TIMESTAMP(6) AND leased_by IS NULL AND attempts > 0
     LIMIT 10001) f) AS retrying,
  (SELECT COUNT(*) FROM (SELECT id FROM postbox_jobs WHERE state = 2 LIMIT 10001) p) AS parked,
  (SELECT MIN(available_at) FROM postbox_jobs WHERE state = 0 AND available_at <= CURRENT_TIMESTAMP(6)) AS oldest_due,
  CURRENT_TIMESTAMP(6) AS db_now
