-- params: per row: name, payload, dedupe_key, max_attempts, delay millis
INSERT INTO postbox_jobs (name, payload, dedupe_key, max_attempts, state, grp, fair_tag, available_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, TIMESTAMPADD(MICROSECOND, ? * 1000, UTC_TIMESTAMP(6)), UTC_TIMESTAMP(6)), (?, ?, ?, ?, ?, ?, ?, TIMESTAMPADD(MICROSECOND, ? * 1000, UTC_TIMESTAMP(6)), UTC_TIMESTAMP(6))
