-- params: the name
SELECT id, tick_at FROM postbox_jobs WHERE state = 0 AND name = ? AND tick_at IS NOT NULL ORDER BY id DESC
