-- params: none
SELECT
  (SELECT COUNT(*) FROM postbox_jobs WHERE state IN (0, 3, 5)) AS pending,
  (SELECT COUNT(*) FROM postbox_jobs
   WHERE state IN (0, 3, 5) AND available_at <= UTC_TIMESTAMP(6)) AS ready,
  (SELECT COUNT(*) FROM postbox_jobs
   WHERE state IN (0, 3, 5) AND available_at > UTC_TIMESTAMP(6) AND leased_by IS NOT NULL)
    AS leased,
  (SELECT COUNT(*) FROM postbox_jobs WHERE state = 2) AS parked,
  (SELECT MIN(created_at) FROM postbox_jobs WHERE state IN (0, 3, 5)) AS oldest,
  0 AS blocked_keys,
  0 AS blocked,
  UTC_TIMESTAMP(6) AS db_now
