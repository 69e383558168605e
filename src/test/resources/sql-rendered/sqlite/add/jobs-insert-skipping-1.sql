-- params: per row: name, payload, dedupe_key, max_attempts, delay millis
INSERT INTO postbox_jobs (name, payload, dedupe_key, max_attempts, state, grp, fair_tag, available_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, (CAST((julianday('now') - 2440587.5) * 86400000.0 + 0.5 AS INTEGER) + ?), CAST((julianday('now') - 2440587.5) * 86400000.0 + 0.5 AS INTEGER)) ON CONFLICT (dedupe_key) DO NOTHING
