-- Wakes the dispatchers that LISTEN on {channel} when the caller's transaction commits (Jobs.resume
-- on a job table that notifies). No params.
SELECT pg_notify('{channel}', '')
