-- Success, deleting the rows {ids}. Params: leased_by, claims, the ids.
DELETE FROM {table} WHERE leased_by = ? AND claims = ? AND id IN ({ids})
