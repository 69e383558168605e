-- Admitted jobs of a paused name that no claim took go back to wait (state 3, keeping their
-- place): while paused they would hold their group's slots, which the group's other names need.
-- A lease, even one run out, keeps its job admitted: its holder may still finish it. No params.
UPDATE {table} SET state = 3
WHERE state = 0 AND fair_tag IS NOT NULL AND leased_by IS NULL
  AND name IN (SELECT name FROM {table}_flow WHERE kind = 'name' AND paused_at IS NOT NULL)
