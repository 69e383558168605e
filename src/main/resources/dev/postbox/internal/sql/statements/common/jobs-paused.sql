-- Jobs.paused: the paused job names. No params.
SELECT name FROM {flow} WHERE kind = 'name' AND paused_at IS NOT NULL
