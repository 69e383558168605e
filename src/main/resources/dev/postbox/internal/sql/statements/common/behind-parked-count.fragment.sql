-- The stats' count of pending rows whose time has come but that wait behind a parked row of their
-- key ({blocked}). Read from the first parked row of each key through the key index, so it costs
-- what the blocked keys' rows cost, however many other rows are pending.
(SELECT COUNT(*) FROM {table} postbox_parked
 JOIN {table} postbox_waiting ON postbox_waiting.{key} = postbox_parked.{key}
   AND postbox_waiting.state = 0 AND postbox_waiting.id > postbox_parked.id
   AND postbox_waiting.available_at <= {now}
 WHERE postbox_parked.state = 2 AND NOT EXISTS (
   SELECT 1 FROM {table} postbox_prior WHERE postbox_prior.{key} = postbox_parked.{key}
     AND postbox_prior.state = 2 AND postbox_prior.id < postbox_parked.id))
