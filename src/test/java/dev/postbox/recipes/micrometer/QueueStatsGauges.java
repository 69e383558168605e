package dev.postbox.recipes.micrometer;

import dev.postbox.QueueStats;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.TimeGauge;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gauges of one Postbox table's {@link QueueStats} (pending, due, leased, parked, blocked keys and
 * rows, oldest pending age), tagged with the table. One read of the stats serves every gauge for
 * {@code maxAge}, so a scrape (or several registries) does not query the database each time.
 *
 * <p>Thread-safe: a read runs on a connection of its own from the pool, in the scraping thread, one
 * at a time. When the read fails the gauges show NaN until the next read, {@code maxAge} later.
 */
public final class QueueStatsGauges {
  private static final Logger log = LoggerFactory.getLogger(QueueStatsGauges.class);

  private final DataSource dataSource;
  private final String table;
  private final Function<Connection, QueueStats> read;
  private final long maxAgeNanos;
  private QueueStats last; // guarded by this; null when the last read failed
  private long readAt; // guarded by this
  private boolean everRead; // guarded by this

  /**
   * Registers the gauges.
   *
   * @param registry where to register
   * @param dataSource the pool to read through
   * @param table the table's name, for the tag: {@code outbox.table()} or {@code jobs.table()}
   * @param read how to read the stats: {@code outbox::stats} or {@code jobs::stats}
   * @param maxAge how long one read serves
   */
  public QueueStatsGauges(
      MeterRegistry registry,
      DataSource dataSource,
      String table,
      Function<Connection, QueueStats> read,
      Duration maxAge) {
    this.dataSource = dataSource;
    this.table = table;
    this.read = read;
    this.maxAgeNanos = maxAge.toNanos();
    gauge(registry, "postbox.queue.pending", QueueStats::pending);
    gauge(registry, "postbox.queue.due", QueueStats::due);
    gauge(registry, "postbox.queue.leased", QueueStats::leased);
    gauge(registry, "postbox.queue.parked", QueueStats::parked);
    gauge(registry, "postbox.queue.blocked.keys", QueueStats::blockedKeys);
    gauge(registry, "postbox.queue.blocked", QueueStats::blocked);
    TimeGauge.builder(
            "postbox.queue.oldest.age",
            this,
            TimeUnit.MILLISECONDS,
            g -> g.value(s -> s.oldestPendingAge().toMillis()))
        .tag("table", table)
        .strongReference(true) // the registry keeps this object alive; callers need not
        .register(registry);
  }

  private void gauge(MeterRegistry registry, String name, ToDoubleFunction<QueueStats> value) {
    Gauge.builder(name, this, g -> g.value(value))
        .tag("table", table)
        .strongReference(true)
        .register(registry);
  }

  private double value(ToDoubleFunction<QueueStats> value) {
    QueueStats stats = stats();
    return stats == null ? Double.NaN : value.applyAsDouble(stats);
  }

  /** The cached stats, read again once older than {@code maxAge}; null if the read failed. */
  synchronized QueueStats stats() {
    long now = System.nanoTime();
    if (!everRead || now - readAt >= maxAgeNanos) {
      everRead = true;
      readAt = now;
      try (Connection c = dataSource.getConnection()) {
        last = read.apply(c);
      } catch (SQLException | RuntimeException e) {
        log.warn("reading the stats of {} failed: {}", table, e.toString());
        last = null;
      }
    }
    return last;
  }
}
