-- No row of the key of {table}'s row before it in the states {states} ("= 0", or "IN (0, 2)" where
-- a parked row blocks its key); {gone}: nothing, or the rows the same statement finishes, which
-- count as gone already (" AND postbox_prior.id NOT IN (…)").
NOT EXISTS (SELECT 1 FROM {table} postbox_prior WHERE postbox_prior.{key} = {table}.{key} AND postbox_prior.state {states} AND postbox_prior.id < {table}.id{gone})
