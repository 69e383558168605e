-- The front of the fair order: the least fair_tag of the jobs waiting for admission (state 3), NULL
-- if none waits. A job of a group with nothing waiting joins there. No params.
SELECT MIN(fair_tag) FROM {table} WHERE state = 3
