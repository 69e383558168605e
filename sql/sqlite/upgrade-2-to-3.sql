-- Postbox schema 2 to 3: delivery in key order (see UPGRADING.md). Rename the tables here if
-- yours are not the default names. Safe to run while dispatchers of schema 2 are running; start
-- the new version only once it has run.

CREATE INDEX postbox_outbox_key ON postbox_outbox (msg_key, state, id) WHERE msg_key IS NOT NULL;
