-- params: the name
DELETE FROM postbox_jobs_flow WHERE kind = 'name' AND name = ?
