-- The dispatcher instances holding leases on a table, among the 10,001 rows not due yet that are
-- due soonest (a lease ends within the lease's length): each one's leased rows and the soonest end
-- of its leases. No params.
SELECT leased_by, COUNT(*) AS leased, MIN(available_at) AS soonest_end
FROM (SELECT leased_by, available_at FROM {table}
      WHERE {pending} AND available_at > {now} ORDER BY available_at LIMIT 10001) l
WHERE leased_by IS NOT NULL
GROUP BY leased_by ORDER BY leased_by
