-- Jobs.pause: pauses a job name (a 'name' row of the flow table {flow}) unless it is paused
-- already, whose paused_at it keeps; never an error, which on PostgreSQL would abort the caller's
-- transaction. Params: the name.
INSERT INTO {flow} (kind, name, paused_at, updated_at) VALUES ('name', ?, {now}, {now}) ON CONFLICT (kind, name) DO NOTHING
