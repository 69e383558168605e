package dev.postbox.testing;

import dev.postbox.Database;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * Waits until the database shows adds waiting for another transaction's key lock: how a test knows
 * that a producer is blocked, without sleeping. Counts only this database's sessions (the servers
 * are shared with other test runs).
 */
public final class KeyLockWaits {
  private KeyLockWaits() {}

  /**
   * Waits until {@code n} adds wait for a key lock on the outbox table; on SQLite returns at once
   * (one writer: a second add waits for the file's write lock, which no view shows).
   */
  public static void await(DataSource ds, Database database, int n, Duration timeout) {
    String sql =
        switch (database) {
          case POSTGRESQL ->
              "SELECT COUNT(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"
                  + " AND database = (SELECT oid FROM pg_database"
                  + " WHERE datname = current_database())";
          case MYSQL ->
              "SELECT COUNT(*) FROM information_schema.PROCESSLIST"
                  + " WHERE DB = DATABASE() AND INFO LIKE 'INSERT INTO postbox_outbox_keys%'";
          // H2 names no blocker while the awaited row is a new one: the waiting statement it is
          case H2 ->
              "SELECT COUNT(*) FROM INFORMATION_SCHEMA.SESSIONS"
                  + " WHERE EXECUTING_STATEMENT LIKE 'MERGE INTO postbox_outbox_keys%'";
          case SQLITE -> null;
        };
    if (sql != null) {
      Await.until(timeout, n + " adds waiting for a key lock", () -> Sql.count(ds, sql) == n);
    }
  }
}
