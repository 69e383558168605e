-- Postbox schema 1 to 2: the claims column, which fences the outcome of each claim, and the job
-- table's running_key (see UPGRADING.md). Rename the tables here if yours are not the default
-- names. Safe to run while dispatchers of schema 1 are running: they neither read nor write these.

ALTER TABLE postbox_outbox ADD COLUMN claims INTEGER NOT NULL DEFAULT 0;

ALTER TABLE postbox_jobs ADD COLUMN claims INTEGER NOT NULL DEFAULT 0;

-- a job's dedupe key moves to running_key when the job starts, so that one follow-up job with the
-- same key can be enqueued while it runs (it runs after it)
ALTER TABLE postbox_jobs ADD COLUMN running_key VARCHAR(128);

ALTER TABLE postbox_jobs ADD CONSTRAINT postbox_jobs_running_key UNIQUE (running_key);
