-- Admits waiting jobs that are their group's only one in the admission's window (a group that
-- trickles, next to one with a backlog), due a second before their admission, so that claims take
-- them before the jobs admitted in the last second. Params: minus 1,000 (millis), the ids.
UPDATE {table} SET state = 0, available_at = {nowPlusMillis} WHERE id IN ({ids})
