-- The row of {table} is the oldest pending row of its key: one probe of the key index (key, state,
-- id) that stops at the key's first pending entry. NOT EXISTS with "id <" read every pending entry
-- of the key when the row was its head (300 pending rows a key: a claim's check of 1,000
-- candidates 33-45 ms against 11-20 ms). The primary key may not serve the ORDER BY: with stale
-- statistics (a table bulk-emptied, n_rows 0) MariaDB chose to scan it from the first id.
{table}.id = (SELECT postbox_first.id FROM {table} postbox_first IGNORE INDEX FOR ORDER BY (PRIMARY) WHERE postbox_first.{key} = {table}.{key} AND postbox_first.state = 0 ORDER BY postbox_first.id LIMIT 1)
