-- params: the shift
UPDATE postbox_jobs SET state = 3, fair_tag = fair_tag + ? WHERE state = 5 AND available_at <= statement_timestamp()
