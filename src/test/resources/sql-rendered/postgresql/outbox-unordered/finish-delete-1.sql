-- params: leased_by, claims, the 1 ids (the last one repeated up to the count)
DELETE FROM postbox_outbox WHERE leased_by = ? AND claims = ? AND id IN (?)
