-- Opens a claim's transaction (ended by COMMIT): one writer per file, so it takes the write lock up
-- front; a deferred transaction that upgrades gets SQLITE_BUSY without waiting for the busy timeout.
BEGIN IMMEDIATE
