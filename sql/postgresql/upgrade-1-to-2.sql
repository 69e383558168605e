-- Postbox schema 1 to 2: the claims column, which fences the outcome of each claim (see
-- UPGRADING.md). Rename the tables here if yours are not the default names. Safe to run while
-- dispatchers of the previous version are running: they neither read nor write the column.

ALTER TABLE postbox_outbox ADD COLUMN claims INTEGER NOT NULL DEFAULT 0;

ALTER TABLE postbox_jobs ADD COLUMN claims INTEGER NOT NULL DEFAULT 0;
