-- Opens a claim's transaction on a connection in auto-commit mode (ended by COMMIT), one
-- statement a line: READ COMMITTED, so that the claim takes no gap locks, and neither deadlocks with
-- nor blocks concurrent INSERTs. SET TRANSACTION applies to the next transaction only: nothing to
-- restore afterwards.
SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
START TRANSACTION
