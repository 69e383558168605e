package dev.postbox;

import dev.postbox.internal.Listeners;
import dev.postbox.internal.dialect.Dialect;
import dev.postbox.internal.jdbc.Jdbc;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A dispatcher's look, now and then, for jobs of names it has no handler for that have been due
 * longer than a lease: it never claims them, so they wait for a dispatcher that has one (a rolling
 * deploy that adds a job type) or for ever. Says so at WARN and to the listener, once per name per
 * hour. Runs on the dispatcher's thread for it; not thread-safe.
 */
final class UnhandledJobs implements Runnable {
  private static final Logger log = LoggerFactory.getLogger(UnhandledJobs.class);
  static final Duration EVERY_AT_MOST = Duration.ofMinutes(1);
  private static final Duration REPEAT = Duration.ofHours(1);

  private final DataSource dataSource;
  private final Dialect dialect;
  private final String table;
  private final String sql;
  private final Duration lease;
  private final Listener listener;
  private final String instanceId;
  private final Map<String, Long> warnedAt = new HashMap<>(); // nanoTime, per name

  UnhandledJobs(
      DataSource dataSource,
      Dialect dialect,
      String table,
      Collection<String> handled,
      Duration lease,
      Listener listener,
      String instanceId) {
    this.dataSource = dataSource;
    this.dialect = dialect;
    this.table = table;
    this.sql = JobNames.overdueUnhandled(dialect, table, handled);
    this.lease = lease;
    this.listener = listener;
    this.instanceId = instanceId;
  }

  /** How often to look: every lease, at most every minute. */
  static Duration every(Duration lease) {
    return lease.compareTo(EVERY_AT_MOST) < 0 ? lease : EVERY_AT_MOST;
  }

  @Override
  public void run() {
    try {
      Jdbc.autoCommit(
          dataSource,
          c -> {
            try (PreparedStatement ps = c.prepareStatement(sql)) {
              ps.setLong(1, -lease.toMillis());
              ps.setLong(2, -lease.toMillis());
              try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                  waiting(
                      rs.getString("name"),
                      rs.getLong("waiting"),
                      dialect.readInstant(rs, "since"));
                }
              }
            }
            return null;
          });
    } catch (SQLException e) {
      log.debug("{} - looking for jobs without a handler on {} failed", instanceId, table, e);
    }
  }

  private void waiting(String name, long count, Instant since) {
    long now = System.nanoTime();
    Long last = warnedAt.get(name);
    if (last != null && now - last < REPEAT.toNanos()) {
      return;
    }
    warnedAt.put(name, now);
    log.warn(
        "{} - {}{} jobs named '{}' on {} have been due since {} and this dispatcher has no handler"
            + " for that name: it never claims them; they wait for a dispatcher that has one"
            + " (deploy one, or cancel them). Said once an hour.",
        instanceId,
        count,
        count >= JobNames.OVERDUE_LOOKED_AT ? "+" : "",
        name,
        table,
        since);
    Listeners.call(() -> listener.jobsWithoutHandler(table, name, count, since));
  }
}
