-- params: none
SELECT COUNT(*) FROM postbox_outbox WHERE state = 0
