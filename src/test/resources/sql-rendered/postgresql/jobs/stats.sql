-- params: none
SELECT
  (SELECT COUNT(*) FROM postbox_jobs WHERE state IN (0, 3, 5)) AS pending,
  (SELECT COUNT(*) FROM postbox_jobs
   WHERE state IN (0, 3, 5) AND available_at <= statement_timestamp()) AS ready,
  (SELECT COUNT(*) FROM postbox_jobs
   WHERE state IN (0, 3, 5) AND available_at > statement_timestamp() AND leased_by IS NOT NULL)
    AS leased,
  (SELECT COUNT(*) FROM postbox_jobs WHERE state = 2) AS parked,
  (SELECT MIN(created_at) FROM postbox_jobs WHERE state IN (0, 3, 5)) AS oldest,
  0 AS blocked_keys,
  0 AS blocked,
  statement_timestamp() AS db_now
