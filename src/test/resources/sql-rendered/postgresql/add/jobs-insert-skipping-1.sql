-- params: per row: name, payload, dedupe_key, max_attempts, delay millis
INSERT INTO postbox_jobs (name, payload, dedupe_key, max_attempts, state, grp, fair_tag, available_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, (statement_timestamp() + ? * interval '1 millisecond'), statement_timestamp()) ON CONFLICT (dedupe_key) DO NOTHING
