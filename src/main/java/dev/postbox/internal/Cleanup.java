package dev.postbox.internal;

import dev.postbox.internal.jdbc.Jdbc;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes rows past their retention in bounded batches (1,000 per statement, each its own short
 * transaction), so cleanup never holds long locks or bloats one transaction.
 */
public final class Cleanup implements Runnable {
  private static final Logger log = LoggerFactory.getLogger(Cleanup.class);
  static final int BATCH = 1000;

  private final DataSource dataSource;
  private final String table;
  private final String sql;
  private final Duration retention;
  private final String instanceId;
  private final BooleanSupplier stopping;

  /**
   * @param sql a bounded DELETE from {@link dev.postbox.internal.dialect.Dialect#deleteLimited}
   *     whose first parameter is the negated retention in milliseconds and second the batch size
   */
  public Cleanup(
      DataSource dataSource,
      String table,
      String sql,
      Duration retention,
      String instanceId,
      BooleanSupplier stopping) {
    this.dataSource = dataSource;
    this.table = table;
    this.sql = sql;
    this.retention = retention;
    this.instanceId = instanceId;
    this.stopping = stopping;
  }

  @Override
  public void run() {
    try {
      long total = 0;
      int deleted;
      do {
        deleted =
            Jdbc.autoCommit(
                dataSource,
                c -> {
                  try (PreparedStatement ps = c.prepareStatement(sql)) {
                    ps.setLong(1, -retention.toMillis());
                    ps.setInt(2, BATCH);
                    return ps.executeUpdate();
                  }
                });
        total += deleted;
      } while (deleted == BATCH && !stopping.getAsBoolean());
      if (total > 0) {
        log.debug("{} - deleted {} rows past retention from {}", instanceId, total, table);
      }
    } catch (SQLException | RuntimeException e) {
      log.warn("{} - cleaning up {} failed: {}", instanceId, table, e.toString());
    }
  }
}
