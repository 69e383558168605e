package dev.postbox.internal.lane;

import dev.postbox.internal.jdbc.Jdbc;
import dev.postbox.internal.sql.QueueSql;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Extends the lease of every row a lane still holds (waiting to start, running, or waiting for its
 * outcome to be written), so long deliveries are not taken over. Only rows still leased by this
 * instance are touched.
 */
final class LeaseRenewer implements Runnable {
  private static final Logger log = LoggerFactory.getLogger(LeaseRenewer.class);
  private static final int CHUNK = 500;

  private final DataSource dataSource;
  private final QueueSql sql;
  private final LaneSettings settings;
  private final Supplier<Collection<Long>> held;
  private volatile long lastRenewedNanos; // set at start, then by each run

  LeaseRenewer(
      DataSource dataSource, QueueSql sql, LaneSettings settings, Supplier<Collection<Long>> held) {
    this.dataSource = dataSource;
    this.sql = sql;
    this.settings = settings;
    this.held = held;
  }

  /** The lane starts claiming now: the first renewal is measured from here. */
  void started() {
    lastRenewedNanos = System.nanoTime();
  }

  @Override
  public void run() {
    List<Long> ids = new ArrayList<>(held.get());
    if (ids.isEmpty()) {
      lastRenewedNanos = System.nanoTime(); // nothing held, nothing at risk
      return;
    }
    try {
      Jdbc.autoCommit(
          dataSource,
          c -> {
            for (int from = 0; from < ids.size(); from += CHUNK) {
              sql.extend(
                  c,
                  settings.lease().toMillis(),
                  settings.instanceId(),
                  ids.subList(from, Math.min(ids.size(), from + CHUNK)));
            }
            return null;
          });
      warnIfLate(ids.size());
    } catch (SQLException | RuntimeException e) {
      log.warn(
          "{} - renewing {} leases on {} failed: {}",
          settings.instanceId(),
          ids.size(),
          sql.table(),
          e.toString());
    }
  }

  /**
   * Renewal runs every third of the lease; a gap over half the lease means the renewal waited (for
   * a pooled connection, behind a slow statement, or in a process pause) and held rows came close
   * to being taken over by another instance.
   */
  private void warnIfLate(int rows) {
    long now = System.nanoTime();
    long gapMillis = (now - lastRenewedNanos) / 1_000_000;
    lastRenewedNanos = now;
    if (gapMillis > settings.lease().toMillis() / 2) {
      log.warn(
          "{} - leases of {} rows on {} renewed {} ms after the previous renewal, more than half the"
              + " lease ({} ms): another instance may take them over; check that the connection"
              + " pool is not exhausted by deliveries and that the process is not pausing",
          settings.instanceId(),
          rows,
          sql.table(),
          gapMillis,
          settings.lease().toMillis());
    }
  }
}
