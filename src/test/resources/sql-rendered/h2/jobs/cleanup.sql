-- params: -retention millis, the limit
DELETE FROM postbox_jobs WHERE id IN (
  SELECT id FROM postbox_jobs
  WHERE state = 1 AND available_at < DATEADD(MILLISECOND, CAST(? AS BIGINT), CURRENT_TIMESTAMP(6))
  LIMIT ?)
