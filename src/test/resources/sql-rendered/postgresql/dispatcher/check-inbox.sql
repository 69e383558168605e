-- params: none
SELECT consumer, event_id, created_at FROM postbox_inbox WHERE 1 = 0
