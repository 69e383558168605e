-- params: -retention millis, the limit
DELETE FROM postbox_jobs WHERE id IN (
  SELECT id FROM postbox_jobs
  WHERE state = 1 AND available_at < (statement_timestamp() + ? * interval '1 millisecond')
  LIMIT ?)
