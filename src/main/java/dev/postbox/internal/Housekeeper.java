package dev.postbox.internal;

import dev.postbox.internal.jdbc.Jdbc;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Renews the lease of every row the lane still holds, every third of the lease, and deletes
 * finished rows past their retention in bounded batches.
 */
final class Housekeeper {
  private static final Logger log = LoggerFactory.getLogger(Housekeeper.class);
  private static final int CHUNK = 500;
  static final int CLEANUP_BATCH = 1000;

  private final DataSource dataSource;
  private final QueueSql sql;
  private final LaneSettings settings;
  private final Supplier<Set<Long>> held;
  private final Thread thread;
  private volatile boolean stopped;

  Housekeeper(
      DataSource dataSource, QueueSql sql, LaneSettings settings, Supplier<Set<Long>> held) {
    this.dataSource = dataSource;
    this.sql = sql;
    this.settings = settings;
    this.held = held;
    this.thread =
        Thread.ofVirtual()
            .name(settings.instanceId() + "-" + sql.table + "-housekeeping")
            .unstarted(this::run);
  }

  void start() {
    thread.start();
  }

  void close() throws InterruptedException {
    stopped = true;
    LockSupport.unpark(thread);
    thread.join();
  }

  private void run() {
    long renewEvery = settings.lease().toNanos() / 3;
    long cleanEvery = settings.cleanupInterval().toNanos();
    boolean cleans = !settings.retention().isZero();
    long nextRenew = System.nanoTime() + renewEvery;
    long nextClean = System.nanoTime() + (cleans ? cleanEvery : Long.MAX_VALUE / 2);
    while (!stopped) {
      long now = System.nanoTime();
      long next = Math.min(nextRenew, nextClean);
      if (now < next) {
        LockSupport.parkNanos(next - now);
        continue;
      }
      if (now >= nextRenew) {
        renewLeases();
        nextRenew = System.nanoTime() + renewEvery;
      }
      if (now >= nextClean) {
        cleanUp();
        nextClean = System.nanoTime() + cleanEvery;
      }
    }
  }

  private void renewLeases() {
    List<Long> ids = new ArrayList<>(held.get());
    if (ids.isEmpty()) {
      return;
    }
    try {
      int renewed =
          Jdbc.autoCommit(
              dataSource,
              c -> {
                int total = 0;
                for (int from = 0; from < ids.size(); from += CHUNK) {
                  List<Long> chunk = ids.subList(from, Math.min(ids.size(), from + CHUNK));
                  try (PreparedStatement ps = c.prepareStatement(sql.extend(chunk.size()))) {
                    int p = 1;
                    ps.setLong(p++, settings.lease().toMillis());
                    ps.setString(p++, settings.instanceId());
                    for (long id : chunk) {
                      ps.setLong(p++, id);
                    }
                    total += ps.executeUpdate();
                  }
                }
                return total;
              });
      log.debug(
          "{} - renewed the lease of {} rows on {}", settings.instanceId(), renewed, sql.table);
    } catch (SQLException | RuntimeException e) {
      log.warn(
          "{} - renewing leases on {} failed: {}", settings.instanceId(), sql.table, e.toString());
    }
  }

  /** Deletes finished rows older than the retention, a bounded batch per statement. */
  void cleanUp() {
    try {
      long total = 0;
      int deleted;
      do {
        deleted =
            Jdbc.autoCommit(
                dataSource,
                c -> {
                  try (PreparedStatement ps = c.prepareStatement(sql.cleanup)) {
                    ps.setLong(1, -settings.retention().toMillis());
                    ps.setInt(2, CLEANUP_BATCH);
                    return ps.executeUpdate();
                  }
                });
        total += deleted;
      } while (deleted == CLEANUP_BATCH && !stopped);
      if (total > 0) {
        log.debug("{} - deleted {} finished rows from {}", settings.instanceId(), total, sql.table);
      }
    } catch (SQLException | RuntimeException e) {
      log.warn("{} - cleaning up {} failed: {}", settings.instanceId(), sql.table, e.toString());
    }
  }
}
