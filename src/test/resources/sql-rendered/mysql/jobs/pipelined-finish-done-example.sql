-- params: none: written in (leased_by 'instance-1', claims 7, ids 1, 2, 3 padded to 4)
UPDATE postbox_jobs SET state = 1, available_at = UTC_TIMESTAMP(6), leased_by = NULL, dedupe_key = NULL, running_key = NULL
WHERE leased_by = _utf8mb4 X'696e7374616e63652d31' AND claims = 7 AND id IN (1, 2, 3, 3)
