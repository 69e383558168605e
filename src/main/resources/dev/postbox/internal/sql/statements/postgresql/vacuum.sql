-- Removes dead rows and index entries; null where the database needs no such statement.
-- Each claim and finish leaves a dead entry at the head of the claim index, which every later claim
-- walks over until a vacuum removes it; autovacuum may come a minute later, or never.
VACUUM (ANALYZE) {table}
