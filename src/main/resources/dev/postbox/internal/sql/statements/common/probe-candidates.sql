-- candidates for a probe: newest first. Params: the excluded ids, the limit.
SELECT id FROM {table}
WHERE state = 0 AND available_at <= {now}{filter}{excluded}
ORDER BY id DESC LIMIT ?
