-- Among the {overdue} jobs due longest, due for longer than a wait, those of names a dispatcher
-- has no handler for ({names}: the names it handles, as literals), per name: how many and since
-- when; the pending jobs (state 0) and those waiting for admission (state 3, which an admission
-- never admits for a name no dispatcher handles) each their own {overdue}, each read in the claim
-- index's order. Bounded: jobs nobody claims grow old, so they are among the oldest. A paused
-- name's jobs are left out: they wait on purpose, and a large paused backlog must not fill the
-- bound. Params: the wait (negative millis), the wait.
SELECT name, COUNT(*) AS waiting, MIN(available_at) AS since FROM (SELECT name, available_at FROM (SELECT name, available_at FROM {table} WHERE state = 0 AND available_at <= {nowPlusMillis} AND name NOT IN ({_paused-names}) ORDER BY available_at, id LIMIT {overdue}) pending UNION ALL SELECT name, available_at FROM (SELECT name, available_at FROM {table} WHERE state = 3 AND available_at <= {nowPlusMillis} AND name NOT IN ({_paused-names}) ORDER BY available_at, id LIMIT {overdue}) waiting) overdue WHERE name NOT IN ({names}) GROUP BY name
