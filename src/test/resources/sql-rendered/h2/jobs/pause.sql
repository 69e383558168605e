-- params: the name
MERGE INTO postbox_jobs_flow f USING (SELECT 'name' AS kind, CAST(? AS VARCHAR(200)) AS name) p ON f.kind = p.kind AND f.name = p.name WHEN NOT MATCHED THEN INSERT (kind, name, paused_at, updated_at) VALUES (p.kind, p.name, CURRENT_TIMESTAMP(6), CURRENT_TIMESTAMP(6))
