-- Removes a dispatcher's entry when it stops. Params: instance id.
DELETE FROM {table} WHERE instance_id = ?
