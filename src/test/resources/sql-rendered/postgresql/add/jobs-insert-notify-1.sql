-- params: per row: name, payload, dedupe_key, max_attempts, delay millis
WITH added AS (INSERT INTO postbox_jobs (name, payload, dedupe_key, max_attempts, state, grp, fair_tag, available_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, (statement_timestamp() + ? * interval '1 millisecond'), statement_timestamp()) RETURNING 1) SELECT COUNT(*), pg_notify('postbox_jobs', '') FROM added
