-- The first {window} jobs waiting for admission in the fair order, that a claim could take once
-- admitted ({filter}: not paused, no started job holds the dedupe key, a name this dispatcher
-- handles). No params.
SELECT id, grp, name, fair_tag FROM {table}
WHERE state = 3 AND available_at <= {now}{filter}
ORDER BY fair_tag, id LIMIT {window}
