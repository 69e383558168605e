-- params: a job id
SELECT state, available_at FROM postbox_jobs WHERE id = ?
