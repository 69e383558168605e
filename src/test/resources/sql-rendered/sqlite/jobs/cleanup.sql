-- params: -retention millis, the limit
DELETE FROM postbox_jobs WHERE id IN (
  SELECT id FROM postbox_jobs
  WHERE state = 1 AND available_at < (CAST((julianday('now') - 2440587.5) * 86400000.0 + 0.5 AS INTEGER) + ?)
  LIMIT ?)
