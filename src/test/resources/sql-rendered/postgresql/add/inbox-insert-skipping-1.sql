-- params: per row: consumer, event_id
INSERT INTO postbox_inbox (consumer, event_id, created_at) VALUES (?, ?, statement_timestamp()) ON CONFLICT (consumer, event_id) DO NOTHING
