-- The rows a claim that carries a finish deletes (or marks done) in the same statement, which its
-- other parts still see as pending: gone already for the head check.
SELECT finished$id FROM claim$finished
