-- params: id, claims
SELECT COUNT(*) FROM postbox_outbox WHERE id = ? AND claims = ? AND state = 2
