-- Jobs.pause: pauses a job name (a 'name' row of the flow table {flow}) unless it is paused
-- already: the update of a stored row changes nothing, so its paused_at stays (INSERT IGNORE would
-- also swallow bad values). Params: the name.
INSERT INTO {flow} (kind, name, paused_at, updated_at) VALUES ('name', ?, {now}, {now}) ON DUPLICATE KEY UPDATE kind = kind
