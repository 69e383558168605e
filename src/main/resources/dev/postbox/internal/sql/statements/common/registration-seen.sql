-- Refreshes a dispatcher's entry. Params: instance id.
UPDATE {table} SET seen_at = {now} WHERE instance_id = ?
