-- Postbox schema for MySQL 8.0.1+ and MariaDB 10.6+ (InnoDB). Copy into your migrations; Postbox
-- never runs DDL itself. Times are DATETIME(6) in UTC, always written from UTC_TIMESTAMP(6).
-- Schema version 6 (upgrades: UPGRADING.md).
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
    id           BIGINT        NOT NULL AUTO_INCREMENT,
    event_id     VARCHAR(128)  NOT NULL,
    topic        VARCHAR(200)  NOT NULL,
    msg_key      VARCHAR(255)  NULL,
    payload      LONGTEXT      NOT NULL,
    headers      MEDIUMTEXT    NULL,
    state        SMALLINT      NOT NULL DEFAULT 0,
    attempts     INT           NOT NULL DEFAULT 0,
    claims       INT           NOT NULL DEFAULT 0,
    -- times a RetryLater put the row off without counting an attempt (bounded: maxSnoozes)
    snoozes      INT           NOT NULL DEFAULT 0,
    available_at DATETIME(6)   NOT NULL,
    leased_by    VARCHAR(200)  NULL,
    last_error   VARCHAR(2000) NULL,
    created_at   DATETIME(6)   NOT NULL,
    PRIMARY KEY (id),
    UNIQUE KEY postbox_outbox_event_id (event_id),
    -- InnoDB locks every row it scans: the claim's WHERE and ORDER BY are served by this index alone
    KEY postbox_outbox_claim (state, available_at, id),
    -- serves delivery in key order: the claim's check that a keyed row is the oldest pending one
    -- of its key, and the run of the key's next rows a claim takes with it
    KEY postbox_outbox_key (msg_key, state, id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- one row per key of the outbox, locked by each add of the key until its transaction ends, so the
-- key's messages get their ids in commit order (adds of the same key wait for each other)
CREATE TABLE postbox_outbox_keys (
    msg_key VARCHAR(255) NOT NULL,
    PRIMARY KEY (msg_key)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

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

CREATE TABLE postbox_jobs (
    id           BIGINT        NOT NULL AUTO_INCREMENT,
    name         VARCHAR(200)  NOT NULL,
    payload      LONGTEXT      NOT NULL,
    -- unique among jobs not started yet: moved to running_key when the job is first claimed
    dedupe_key   VARCHAR(128)  NULL,
    -- the dedupe key of a job that has started, until it finishes: a new job with the key waits
    running_key  VARCHAR(128)  NULL,
    max_attempts INT           NOT NULL,
    -- 0 pending, 1 done (kept for the retention), 2 parked; a job that waits for admission (it has a
    -- group, or its name a limit: docs/jobs.md#limits-and-groups) is 5 until due, then 3 until admitted
    state        SMALLINT      NOT NULL DEFAULT 0,
    attempts     INT           NOT NULL DEFAULT 0,
    claims       INT           NOT NULL DEFAULT 0,
    -- times a RetryLater put the row off without counting an attempt (bounded: maxSnoozes)
    snoozes      INT           NOT NULL DEFAULT 0,
    -- the job's group (Job.group): at most limitPerGroup of a group run at once, and groups share
    -- claims fairly; NULL for none
    grp          VARCHAR(200)  NULL,
    -- a job that waits for admission: its place in the fair order (docs/jobs.md#limits-and-groups);
    -- NULL for every other job
    fair_tag     BIGINT        NULL,
    available_at DATETIME(6)   NOT NULL,
    -- when the current attempt became due (its available_at before the claim): JobContext.dueAt
    due_at       DATETIME(6)   NULL,
    -- the tick a recurring job's run stands for (JobContext.tick); NULL for other jobs
    tick_at      DATETIME(6)   NULL,
    leased_by    VARCHAR(200)  NULL,
    last_error   VARCHAR(2000) NULL,
    created_at   DATETIME(6)   NOT NULL,
    PRIMARY KEY (id),
    UNIQUE KEY postbox_jobs_dedupe_key (dedupe_key),
    UNIQUE KEY postbox_jobs_running_key (running_key),
    -- serves the claim (state = 0) and the retention cleanup (state = 1)
    KEY postbox_jobs_claim (state, available_at, id),
    -- admission (docs/jobs.md#limits-and-groups): the waiting jobs (state 3) in their fair order
    -- and the admitted ones (state 0 with a fair_tag), and each group's last place in the order
    KEY postbox_jobs_waiting (state, fair_tag, id),
    KEY postbox_jobs_group_tail (state, grp, name, fair_tag)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- recurring jobs: one row per schedule a dispatcher declared with Dispatcher.Builder.recurring;
-- a row no running dispatcher declares is not run (jobs.removeSchedule deletes it)
CREATE TABLE postbox_jobs_schedules (
    -- the job name of its runs
    name       VARCHAR(200)  NOT NULL PRIMARY KEY,
    -- as declared: "cron 0 3 * * * Europe/Paris", "every PT1H", "fixedRate PT15M"
    schedule   VARCHAR(400)  NOT NULL,
    payload    LONGTEXT      NOT NULL,
    -- when the next run is due, by the database clock; a run still unfinished then delays it
    next_tick  DATETIME(6)   NOT NULL,
    -- the tick of the last run enqueued, and that run's job id
    last_tick  DATETIME(6)   NULL,
    last_run   BIGINT        NULL,
    updated_at DATETIME(6)   NOT NULL
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- flow control of the job queue (docs/jobs.md#flow-control): one row per job name paused with
-- Jobs.pause; a claim never takes a paused name's jobs, and Jobs.resume deletes its row
CREATE TABLE postbox_jobs_flow (
    -- what the row controls: 'name' (a job name), or 'gate' (name '': the lock an admission of
    -- waiting jobs holds, docs/jobs.md#limits-and-groups)
    kind        VARCHAR(10)  NOT NULL,
    name        VARCHAR(200) NOT NULL,
    -- since when its jobs are not claimed, by the database clock; NULL: not paused
    paused_at   DATETIME(6) NULL,
    updated_at  DATETIME(6) NOT NULL,
    PRIMARY KEY (kind, name)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- consumer-side dedupe: one row per (consumer, event) handled, deleted after the retention
CREATE TABLE postbox_inbox (
    consumer   VARCHAR(200) NOT NULL,
    event_id   VARCHAR(128) NOT NULL,
    created_at DATETIME(6)  NOT NULL,
    PRIMARY KEY (consumer, event_id),
    KEY postbox_inbox_created_at (created_at)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
