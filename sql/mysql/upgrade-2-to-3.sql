-- Postbox schema 2 to 3: delivery in key order (see UPGRADING.md). Rename the tables here if
-- yours are not the default names. Safe to run while dispatchers of schema 2 are running; start
-- the new version only once it has run.

ALTER TABLE postbox_outbox ADD KEY postbox_outbox_key (msg_key, state, id);

CREATE TABLE postbox_outbox_keys (
    msg_key VARCHAR(255) NOT NULL,
    PRIMARY KEY (msg_key)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
