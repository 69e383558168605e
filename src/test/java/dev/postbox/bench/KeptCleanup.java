package dev.postbox.bench;

import dev.postbox.Dispatcher;
import dev.postbox.Outbox;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;

/**
 * The other half of {@link DrainVariant#KEEP_DELIVERED}'s cost: the cleanup's DELETE of the rows a
 * drain kept. A dispatcher whose outbox keeps delivered rows for 1 ms, cleaning up every {@value
 * #INTERVAL_MILLIS} ms, deletes the outbox's done rows as the shipped cleanup does (1,000 per
 * statement, each its own transaction); timed from its start (its first {@value #INTERVAL_MILLIS}
 * ms wait included) until the table is empty.
 */
final class KeptCleanup {
  static final int INTERVAL_MILLIS = 10;

  private KeptCleanup() {}

  /**
   * Deletes every done row of the outbox of {@code db} ({@code n} of them) through Postbox's
   * cleanup; returns rows/s and this process's CPU µs per row.
   */
  static double[] time(BenchDb db, int n, Duration timeout) throws Exception {
    Dispatcher.Builder dispatcher =
        Dispatcher.builder(db.dataSource())
            .cleanupInterval(Duration.ofMillis(INTERVAL_MILLIS))
            .outbox(
                Outbox.builder().orderedByKey(false).keepDelivered(Duration.ofMillis(1)).build(),
                e -> {
                  throw new IllegalStateException("no row is pending: nothing may be sent");
                });
    try (Connection c = db.dataSource().getConnection();
        PreparedStatement left = c.prepareStatement("SELECT 1 FROM postbox_outbox LIMIT 1")) {
      c.setAutoCommit(true); // each read its own snapshot, or MariaDB's would never see a delete
      long cpu = Drain.processCpuNanos();
      long start = System.nanoTime();
      try (Dispatcher d = dispatcher.build()) {
        d.start();
        // polling with one cheap read: the cleanup tells no one when it is done
        while (any(left)) {
          if (System.nanoTime() - start > timeout.toNanos()) {
            throw new IllegalStateException("cleanup still running after " + timeout);
          }
          LockSupport.parkNanos(Duration.ofMillis(2).toNanos());
        }
        long nanos = System.nanoTime() - start;
        return new double[] {n / (nanos / 1e9), (Drain.processCpuNanos() - cpu) / 1e3 / n};
      }
    }
  }

  private static boolean any(PreparedStatement left) throws Exception {
    try (ResultSet rs = left.executeQuery()) {
      return rs.next();
    }
  }
}
