package dev.postbox.internal;

import dev.postbox.internal.jdbc.Jdbc;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Vacuums a PostgreSQL queue table after every so many finished rows. Each claim and each delete
 * leaves a dead entry at the head of the claim index, which every later claim walks over until a
 * vacuum removes it; autovacuum wakes once a minute at best (and may be off), so a long drain slows
 * down as they pile up. Measured here: a 500,000-row drain kept its speed (65k/s against 44k/s)
 * with a vacuum every 30,000 rows. Runs on its own virtual thread, one at a time; if the database
 * refuses (not the table's owner), it says so once and stops trying.
 */
final class Vacuum {
  private static final Logger log = LoggerFactory.getLogger(Vacuum.class);

  private final DataSource dataSource;
  private final String statement;
  private final long everyRows;
  private final String instanceId;
  private final AtomicLong sinceLast = new AtomicLong();
  private final AtomicBoolean running = new AtomicBoolean();
  private volatile boolean refused;

  /** {@code statement} null or {@code everyRows} 0: never vacuums. */
  Vacuum(DataSource dataSource, String statement, long everyRows, String instanceId) {
    this.dataSource = dataSource;
    this.statement = statement;
    this.everyRows = statement == null ? 0 : everyRows;
    this.instanceId = instanceId;
  }

  /** Counts {@code rows} more finished rows; starts a vacuum when enough have piled up. */
  void finished(int rows) {
    if (everyRows == 0 || refused || sinceLast.addAndGet(rows) < everyRows) {
      return;
    }
    if (running.compareAndSet(false, true)) {
      sinceLast.set(0);
      Thread.ofVirtual().name(instanceId + "-vacuum").start(this::run);
    }
  }

  private void run() {
    long started = System.nanoTime();
    try {
      Jdbc.autoCommit(
          dataSource,
          c -> {
            try (Statement s = c.createStatement()) {
              s.execute(statement);
            }
            return null;
          });
      log.debug(
          "{} - {} took {} ms", instanceId, statement, (System.nanoTime() - started) / 1_000_000);
    } catch (SQLException e) {
      refused = true;
      log.warn(
          "{} - {} failed, not trying again (vacuum the table yourself or turn autovacuum on): {}",
          instanceId,
          statement,
          e.toString());
    } finally {
      running.set(false);
    }
  }
}
