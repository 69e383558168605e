-- The dispatcher instances holding leases on a table, read from at most 10,001 leased rows: each
-- one's leased rows and the soonest end of its leases. No params.
SELECT leased_by, COUNT(*) AS leased, MIN(available_at) AS soonest_end
FROM (SELECT leased_by, available_at FROM {table}
      WHERE {pending} AND available_at > {now} AND leased_by IS NOT NULL LIMIT 10001) l
GROUP BY leased_by ORDER BY leased_by
