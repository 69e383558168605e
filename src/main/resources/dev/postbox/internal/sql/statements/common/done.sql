-- Success, keeping the rows {ids} as done. Params: leased_by, claims, the ids.
UPDATE {table} SET state = 1, available_at = {now}, leased_by = NULL{doneSet}
WHERE leased_by = ? AND claims = ? AND id IN ({ids})
