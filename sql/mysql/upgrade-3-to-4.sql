-- Postbox schema 3 to 4: the job context's due time and tick, and recurring jobs (see
-- UPGRADING.md). Rename the tables here if yours are not the default names. Safe to run while
-- dispatchers of schema 3 are running; start the new version only once it has run.

ALTER TABLE postbox_jobs ADD COLUMN due_at DATETIME(6) NULL;
ALTER TABLE postbox_jobs ADD COLUMN tick_at DATETIME(6) NULL;

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
