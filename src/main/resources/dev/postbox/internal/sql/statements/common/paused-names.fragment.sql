-- The job names paused in the flow table of the job table {table} (Jobs.pause), a subquery: a
-- claim's FOR UPDATE does not lock what it reads here. The job claim's filter
-- (jobs-claim-filter.fragment.sql), read whole, writes the same subquery out.
SELECT name FROM {table}_flow WHERE kind = 'name' AND paused_at IS NOT NULL
