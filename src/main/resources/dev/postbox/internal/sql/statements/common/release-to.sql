-- release to the time the row was due before its claim. Params: the attempt to refund,
-- available_at, id, leased_by, claims. The same on every database; unused where claimReturnsDue is
-- false.
UPDATE {table}
SET attempts = attempts - ?, available_at = ?, leased_by = NULL{unleaseSet}
WHERE id = ? AND leased_by = ? AND claims = ?
