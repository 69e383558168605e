-- Jobs.pause: pauses a job name (a 'name' row of the flow table {flow}) unless it is paused
-- already, whose paused_at it keeps (H2 has no ON CONFLICT outside PostgreSQL mode; a concurrent
-- pause that stored the row first fails only this statement, which is caught). Params: the name.
MERGE INTO {flow} f USING (SELECT 'name' AS kind, CAST(? AS VARCHAR(200)) AS name) p ON f.kind = p.kind AND f.name = p.name WHEN NOT MATCHED THEN INSERT (kind, name, paused_at, updated_at) VALUES (p.kind, p.name, {now}, {now})
