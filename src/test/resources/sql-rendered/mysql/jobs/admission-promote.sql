-- params: the front's fair_tag
UPDATE postbox_jobs SET state = 3, fair_tag = ? WHERE state = 5 AND available_at <= UTC_TIMESTAMP(6)
