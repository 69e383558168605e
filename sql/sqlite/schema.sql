-- Postbox schema for SQLite 3.35+. Copy into your migrations; Postbox never runs DDL itself.
-- Schema version 6 (upgrades: UPGRADING.md).
-- Open the database in WAL mode with a busy timeout, e.g.
--   jdbc:sqlite:app.db?journal_mode=WAL&busy_timeout=5000
-- Times are INTEGER milliseconds since the Unix epoch, from SQLite's own clock.
--
-- Common columns of the Postbox tables:
--   state         0 = pending, 1 = done (kept for retention), 2 = parked (out of attempts)
--   attempts      delivery attempts so far; incremented when a row is claimed, so crashes count
--   claims        times the row was claimed; only grows (a hand-back, an outage refund or a replay
--                 set attempts back, never this), so leased_by + claims fence every outcome of a claim
--   available_at  the earliest time, by the database clock, at which any instance may claim the row:
--                 the due time of a new or retried row, the lease expiry while a row is claimed,
--                 the finish time of a done row
--   leased_by     instance id of the dispatcher that claimed the row (fences its completion)

CREATE TABLE postbox_outbox (
    -- AUTOINCREMENT: ids are never reused, so a stale completion can never match a newer row
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    event_id     TEXT    NOT NULL,
    topic        TEXT    NOT NULL,
    msg_key      TEXT,
    payload      TEXT    NOT NULL,
    headers      TEXT,
    state        INTEGER NOT NULL DEFAULT 0,
    attempts     INTEGER NOT NULL DEFAULT 0,
    claims       INTEGER NOT NULL DEFAULT 0,
    -- times a RetryLater put the row off without counting an attempt (bounded: maxSnoozes)
    snoozes      INTEGER NOT NULL DEFAULT 0,
    available_at INTEGER NOT NULL,
    leased_by    TEXT,
    last_error   TEXT,
    created_at   INTEGER NOT NULL,
    CONSTRAINT postbox_outbox_event_id UNIQUE (event_id)
);

CREATE INDEX postbox_outbox_claim ON postbox_outbox (state, available_at, id);

-- serves delivery in key order: the claim's check that a keyed row is the oldest pending one of
-- its key, and the run of the key's next rows a claim takes with it
CREATE INDEX postbox_outbox_key ON postbox_outbox (msg_key, state, id) WHERE msg_key IS NOT NULL;

-- the dispatchers delivering the outbox, so that all of them deliver it in the same order: each
-- registers its ordering setting at start, refreshes seen_at while it runs, and removes its row
-- when it stops (the row of a dispatcher not seen for a lease is ignored, then deleted)
CREATE TABLE postbox_outbox_dispatchers (
    instance_id VARCHAR(200) NOT NULL PRIMARY KEY,
    -- how it orders the table: "orderedByKey=false", "orderedByKey=true onParked=BLOCK_KEY", ...
    settings    VARCHAR(400) NOT NULL,
    started_at  INTEGER       NOT NULL,
    seen_at     INTEGER       NOT NULL
);

CREATE TABLE postbox_jobs (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    name         TEXT    NOT NULL,
    payload      TEXT    NOT NULL,
    -- unique among jobs not started yet: moved to running_key when the job is first claimed
    dedupe_key   TEXT,
    -- the dedupe key of a job that has started, until it finishes: a new job with the key waits
    running_key  TEXT,
    max_attempts INTEGER NOT NULL,
    -- 0 pending, 1 done (kept for the retention), 2 parked; a job that waits for admission (it has a
    -- group, or its name a limit: docs/jobs.md#limits-and-groups) is 5 until due, then 3 until admitted
    state        INTEGER NOT NULL DEFAULT 0,
    attempts     INTEGER NOT NULL DEFAULT 0,
    claims       INTEGER NOT NULL DEFAULT 0,
    -- times a RetryLater put the row off without counting an attempt (bounded: maxSnoozes)
    snoozes      INTEGER NOT NULL DEFAULT 0,
    -- the job's group (Job.group): at most limitPerGroup of a group run at once, and groups share
    -- claims fairly; NULL for none
    grp          TEXT,
    -- a job that waits for admission: its place in the fair order (docs/jobs.md#limits-and-groups);
    -- NULL for every other job
    fair_tag     INTEGER,
    available_at INTEGER NOT NULL,
    -- when the current attempt became due (its available_at before the claim): JobContext.dueAt
    due_at       INTEGER,
    -- the tick a recurring job's run stands for (JobContext.tick); NULL for other jobs
    tick_at      INTEGER,
    leased_by    TEXT,
    last_error   TEXT,
    created_at   INTEGER NOT NULL,
    CONSTRAINT postbox_jobs_dedupe_key UNIQUE (dedupe_key),
    CONSTRAINT postbox_jobs_running_key UNIQUE (running_key)
);

CREATE INDEX postbox_jobs_claim ON postbox_jobs (state, available_at, id);

-- admission (docs/jobs.md#limits-and-groups), on the few rows it concerns: the waiting jobs
-- (state 3) in their fair order, each group's last place in it, the admitted ones by group
CREATE INDEX postbox_jobs_waiting ON postbox_jobs (fair_tag, id) WHERE state = 3;
CREATE INDEX postbox_jobs_group_tail ON postbox_jobs (grp, name, fair_tag) WHERE state = 3;
CREATE INDEX postbox_jobs_admitted ON postbox_jobs (grp, name)
    WHERE state = 0 AND fair_tag IS NOT NULL;

-- recurring jobs: one row per schedule a dispatcher declared with Dispatcher.Builder.recurring;
-- a row no running dispatcher declares is not run (jobs.removeSchedule deletes it)
CREATE TABLE postbox_jobs_schedules (
    -- the job name of its runs
    name       TEXT          NOT NULL PRIMARY KEY,
    -- as declared: "cron 0 3 * * * Europe/Paris", "every PT1H", "fixedRate PT15M"
    schedule   TEXT          NOT NULL,
    payload    TEXT          NOT NULL,
    -- when the next run is due, by the database clock; a run still unfinished then delays it
    next_tick  INTEGER       NOT NULL,
    -- the tick of the last run enqueued, and that run's job id
    last_tick  INTEGER,
    last_run   INTEGER,
    updated_at INTEGER       NOT NULL
);

-- flow control of the job queue (docs/jobs.md#flow-control): one row per job name paused with
-- Jobs.pause; a claim never takes a paused name's jobs, and Jobs.resume deletes its row
CREATE TABLE postbox_jobs_flow (
    -- what the row controls: 'name' (a job name), or 'gate' (name '': the lock an admission of
    -- waiting jobs holds, docs/jobs.md#limits-and-groups)
    kind        TEXT    NOT NULL,
    name        TEXT    NOT NULL,
    -- since when its jobs are not claimed, by the database clock; NULL: not paused
    paused_at   INTEGER,
    updated_at  INTEGER NOT NULL,
    PRIMARY KEY (kind, name)
);

-- consumer-side dedupe: one row per (consumer, event) handled, deleted after the retention
CREATE TABLE postbox_inbox (
    consumer   TEXT    NOT NULL,
    event_id   TEXT    NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (consumer, event_id)
);

CREATE INDEX postbox_inbox_created_at ON postbox_inbox (created_at);
