-- The 'gate' row of the flow table {flow}, inserted once by the first admission (admission-gate);
-- a concurrent first admission's duplicate fails and is ignored. No params.
INSERT INTO {flow} (kind, name, paused_at, updated_at) VALUES ('gate', '', NULL, {now})
