package dev.postbox.internal;

import dev.postbox.internal.jdbc.Jdbc;
import dev.postbox.internal.sql.QueueSql;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sets pending again the rows of a table that wait behind no older row of their key ({@link
 * QueueSql#wakeWaiting}): after the parking policy changed from BLOCK_KEY to SKIP, or ordering was
 * turned off, nothing else would. Runs when a lane starts and then every minute, each time one
 * statement in auto-commit; a failure is logged and tried again next time.
 */
final class WakeWaiting implements Runnable {
  private static final Logger log = LoggerFactory.getLogger(WakeWaiting.class);

  private final DataSource dataSource;
  private final QueueSql sql;
  private final String name;

  WakeWaiting(DataSource dataSource, QueueSql sql, String name) {
    this.dataSource = dataSource;
    this.sql = sql;
    this.name = name;
  }

  @Override
  public void run() {
    try {
      int woken = Jdbc.autoCommit(dataSource, sql::wakeWaiting);
      if (woken > 0) {
        log.info(
            "{} - {} waiting rows of {} had no older row of their key holding them back:"
                + " pending again",
            name,
            woken,
            sql.table());
      }
    } catch (SQLException | RuntimeException e) {
      log.warn("{} - waking waiting rows of {} failed: {}", name, sql.table(), e.toString());
    }
  }
}
