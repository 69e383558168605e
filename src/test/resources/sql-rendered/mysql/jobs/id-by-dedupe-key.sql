-- params: the key, the key
SELECT id, dedupe_key FROM postbox_jobs WHERE dedupe_key = ? OR running_key = ?
