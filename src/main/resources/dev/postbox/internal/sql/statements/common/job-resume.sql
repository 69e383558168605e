-- Jobs.resume: the job name's jobs are claimed again. Params: the name.
DELETE FROM {flow} WHERE kind = 'name' AND name = ?
