-- params: none
SELECT id, state, attempts, claims, snoozes, available_at, leased_by, last_error, created_at, name, payload, max_attempts, dedupe_key, running_key, available_at, due_at, tick_at, dedupe_key, running_key, due_at, tick_at, grp, fair_tag FROM postbox_jobs WHERE 1 = 0
