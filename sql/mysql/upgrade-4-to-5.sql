-- Postbox schema 4 to 5: the outbox's dispatchers register how they order it, and one that
-- orders it otherwise than a running one refuses to start (see UPGRADING.md). Rename the tables
-- here if yours are not the default names. Safe to run while dispatchers of schema 4 are running;
-- start the new version only once it has run.

-- the dispatchers delivering the outbox, so that all of them deliver it in the same order: each
-- registers its ordering setting at start, refreshes seen_at while it runs, and removes its row
-- when it stops (the row of a dispatcher not seen for a lease is ignored, then deleted)
CREATE TABLE postbox_outbox_dispatchers (
    instance_id VARCHAR(200) NOT NULL PRIMARY KEY,
    -- how it orders the table: "orderedByKey=false", "orderedByKey=true onParked=BLOCK_KEY", ...
    settings    VARCHAR(400) NOT NULL,
    started_at  DATETIME(6)   NOT NULL,
    seen_at     DATETIME(6)   NOT NULL
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
