-- params: per row: consumer, event_id
INSERT INTO postbox_inbox (consumer, event_id, created_at) VALUES (?, ?, UTC_TIMESTAMP(6))
