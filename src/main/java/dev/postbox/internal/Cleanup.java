package dev.postbox.internal;

import dev.postbox.Database;
import dev.postbox.internal.dialect.Dialects;
import dev.postbox.internal.jdbc.Jdbc;
import dev.postbox.internal.jdbc.SqlFunction;
import dev.postbox.internal.sql.QueueSql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
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
  public static final int BATCH = 1000;

  private final DataSource dataSource;
  private final String table;
  private final SqlFunction<Connection, Integer> deleteBatch;
  private final String instanceId;
  private final BooleanSupplier stopping;

  /**
   * @param deleteBatch deletes up to {@link #BATCH} rows past retention, returns how many
   */
  public Cleanup(
      DataSource dataSource,
      String table,
      SqlFunction<Connection, Integer> deleteBatch,
      String instanceId,
      BooleanSupplier stopping) {
    this.dataSource = dataSource;
    this.table = table;
    this.deleteBatch = deleteBatch;
    this.instanceId = instanceId;
    this.stopping = stopping;
  }

  /**
   * A thread that deletes rows of the inbox {@code table} older than {@code retention}, every
   * {@code interval}, until {@code stopping}.
   */
  public static Periodic inbox(
      DataSource dataSource,
      Database database,
      String table,
      Duration retention,
      Duration interval,
      String instanceId,
      BooleanSupplier stopping) {
    String sql = QueueSql.inboxCleanup(Dialects.of(database), table);
    Cleanup cleanup =
        new Cleanup(
            dataSource,
            table,
            c -> {
              try (PreparedStatement ps = c.prepareStatement(sql)) {
                ps.setLong(1, -retention.toMillis());
                ps.setInt(2, BATCH);
                return ps.executeUpdate();
              }
            },
            instanceId,
            stopping);
    return new Periodic(
        instanceId + "-" + table + "-cleanup", List.of(new Periodic.Task(interval, cleanup)));
  }

  @Override
  public void run() {
    try {
      long total = 0;
      int deleted;
      do {
        deleted = Jdbc.autoCommit(dataSource, deleteBatch);
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
