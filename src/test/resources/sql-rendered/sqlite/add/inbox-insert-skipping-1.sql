-- params: per row: consumer, event_id
INSERT INTO postbox_inbox (consumer, event_id, created_at) VALUES (?, ?, CAST((julianday('now') - 2440587.5) * 86400000.0 + 0.5 AS INTEGER)) ON CONFLICT (consumer, event_id) DO NOTHING
