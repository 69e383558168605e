-- Postbox schema 5 to 6: flow control for jobs (see UPGRADING.md). Rename the tables here if yours
-- are not the default names. Safe to run while dispatchers of schema 5 are running (the columns
-- have defaults and the new table is not read by them); start the new version only once it has run.

-- times a RetryLater put the row off without counting an attempt (bounded: maxSnoozes)
ALTER TABLE postbox_outbox ADD COLUMN snoozes INTEGER DEFAULT 0 NOT NULL;
ALTER TABLE postbox_jobs ADD COLUMN snoozes INTEGER DEFAULT 0 NOT NULL;

-- limits and groups (docs/jobs.md#limits-and-groups): a job's group, and for a job that waits for
-- admission its place in the fair order; it waits in state 5 until due, then in state 3
ALTER TABLE postbox_jobs ADD COLUMN grp VARCHAR(200);
ALTER TABLE postbox_jobs ADD COLUMN fair_tag BIGINT;
CREATE INDEX postbox_jobs_waiting ON postbox_jobs (state, fair_tag, id);
CREATE INDEX postbox_jobs_group_tail ON postbox_jobs (state, grp, name, fair_tag);

-- flow control of the job queue (docs/jobs.md#flow-control): one row per job name paused with
-- Jobs.pause; a claim never takes a paused name's jobs, and Jobs.resume deletes its row
CREATE TABLE postbox_jobs_flow (
    -- what the row controls: 'name' (a job name), or 'gate' (name '': the lock an admission of
    -- waiting jobs holds, docs/jobs.md#limits-and-groups)
    kind        VARCHAR(10)  NOT NULL,
    name        VARCHAR(200) NOT NULL,
    -- since when its jobs are not claimed, by the database clock; NULL: not paused
    paused_at   TIMESTAMP(6) WITH TIME ZONE,
    updated_at  TIMESTAMP(6) WITH TIME ZONE NOT NULL,
    PRIMARY KEY (kind, name)
);
