-- The admitted jobs that no live lease holds yet and that this dispatcher's claims would take
-- ({filter}: not paused, a name it handles, no started job holding the dedupe key): how far the
-- admissions are ahead of its claims. Admitted jobs no claim of it takes must not stop it
-- admitting others. No params.
SELECT COUNT(*) FROM {table}
WHERE state = 0 AND fair_tag IS NOT NULL AND (leased_by IS NULL OR available_at <= {now}){filter}
