-- Postbox schema 3 to 4: the job context's due time (see UPGRADING.md). Rename the table here if
-- yours is not the default name. Safe to run while dispatchers of schema 3 are running; start the
-- new version only once it has run.

ALTER TABLE postbox_jobs ADD COLUMN due_at INTEGER;
