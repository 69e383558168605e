package dev.postbox.internal;

import dev.postbox.internal.sql.Home;
import dev.postbox.internal.sql.Sql;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Wakes lanes when PostgreSQL delivers a {@code NOTIFY} on their table's channel. Holds one pooled
 * connection in {@code LISTEN}; reads notifications through pgjdbc's {@code PGConnection}, found by
 * reflection so that Postbox does not depend on the driver. Many notifications between two reads
 * become one wake-up per lane. Before it listens on the tables' channels, it checks that a {@code
 * LISTEN} holds on that connection (a transaction pooler such as PgBouncer in transaction mode
 * keeps none); if not, it says so once at INFO and stops, leaving the lanes to their polling.
 */
public final class PostgresNotifications {
  private static final Logger log = LoggerFactory.getLogger(PostgresNotifications.class);
  private static final int READ_TIMEOUT_MILLIS = 1000;

  /**
   * How long the check waits for its own notification. On a session of its own it arrives within
   * milliseconds; behind a transaction pooler it never does.
   */
  private static final Duration PROBE_WAIT = Duration.ofSeconds(5);

  private final DataSource dataSource;
  private final Map<String, Runnable> wakeUpByChannel;
  private final String instanceId;
  private final Duration pollInterval; // the lanes' own, for the log line of the fallback
  private final Thread thread;
  private volatile boolean stopped;

  public PostgresNotifications(
      DataSource dataSource,
      Map<String, Runnable> wakeUpByChannel,
      String instanceId,
      Duration pollInterval) {
    this.dataSource = dataSource;
    this.wakeUpByChannel = Map.copyOf(wakeUpByChannel);
    this.instanceId = instanceId;
    this.pollInterval = pollInterval;
    // a platform thread: blocked in the driver's timed socket read, a virtual thread measured
    // 70 ms median wake-up latency against 2 ms for a platform thread (W2, NOTIFY)
    this.thread = Thread.ofPlatform().daemon().name(instanceId + "-listen").unstarted(this::run);
  }

  /** PostgreSQL channel names are identifiers: at most 63 bytes. */
  public static final int MAX_CHANNEL = 63;

  /** Stops every LISTEN of the connection. */
  static final String UNLISTEN = Home.POSTGRESQL.template(Sql.UNLISTEN);

  static String listen(String channel) {
    return Home.POSTGRESQL.template(Sql.LISTEN).replace("{channel}", channel);
  }

  static String notify(String channel) {
    return Home.POSTGRESQL.template(Sql.NOTIFY).replace("{channel}", channel);
  }

  /** The channel a table's adds notify: its name as configured. */
  public static String channel(String table) {
    return table;
  }

  public void start() {
    thread.start();
  }

  /** Stops listening and waits for that, through interrupts; true if the caller was interrupted. */
  public boolean close() {
    stopped = true;
    LockSupport.unpark(thread);
    return Joins.join(thread, Duration.ofSeconds(30));
  }

  private void run() {
    long pauseMillis = 100;
    while (!stopped) {
      try (Connection c = dataSource.getConnection()) {
        try {
          if (!holdsListen(c)) {
            if (!stopped) {
              log.info(
                  "{} - LISTEN on {} received no test notification within {} s: a transaction"
                      + " pooler (PgBouncer in transaction mode?) cannot keep a LISTEN; polling"
                      + " every {} ms instead",
                  instanceId,
                  wakeUpByChannel.keySet(),
                  PROBE_WAIT.toSeconds(),
                  pollInterval.toMillis());
            }
            return; // the finally block unlistens; the connection goes back to the pool
          }
          listen(c);
          pauseMillis = 100;
        } finally {
          unlisten(c); // the connection goes back to the pool: stop notifications queueing on it
        }
      } catch (ReflectiveOperationException | LinkageError e) {
        log.warn(
            "{} - LISTEN needs pgjdbc's org.postgresql.PGConnection ({}); relying on polling",
            instanceId,
            e.toString());
        return;
      } catch (SQLException | RuntimeException e) {
        if (!stopped) {
          log.warn(
              "{} - LISTEN connection failed, reconnecting in {} ms: {}",
              instanceId,
              pauseMillis,
              e.toString());
          LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(pauseMillis));
          pauseMillis = Math.min(pauseMillis * 2, 10_000);
        }
      }
    }
  }

  /**
   * Whether a {@code LISTEN} on {@code c} hears a {@code NOTIFY} sent after it: LISTENs on a probe
   * channel of its own, notifies it from another pooled connection and waits up to {@link
   * #PROBE_WAIT}. Behind a transaction pooler the LISTEN ran on a server connection that went back
   * to the pooler's pool, and nothing reaches this client. Not the tables' channels: a LISTEN left
   * behind on such a server connection would hand their notifications to whichever client borrows
   * it next; nobody notifies a new probe channel again. Not a NOTIFY from {@code c} itself either:
   * the pooler would likely run it on that same server connection, which delivers a session's own
   * notifications to it, and the check would pass.
   */
  private boolean holdsListen(Connection c) throws SQLException, ReflectiveOperationException {
    String probe = "postbox_probe_" + UUID.randomUUID().toString().replace("-", "");
    execute(c, listen(probe));
    try (Connection other = dataSource.getConnection();
        Statement s = other.createStatement()) {
      s.execute(notify(probe));
      if (!other.getAutoCommit()) {
        other.commit(); // a NOTIFY is sent at commit
      }
    }
    long deadline = System.nanoTime() + PROBE_WAIT.toNanos();
    Notifications read = Notifications.of(c);
    while (!stopped) {
      long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
      if (left <= 0) {
        return false;
      }
      for (Object n : read.next((int) Math.min(left, READ_TIMEOUT_MILLIS))) {
        if (probe.equals(read.channel(n))) {
          return true;
        }
      }
    }
    return false;
  }

  private void listen(Connection c) throws SQLException, ReflectiveOperationException {
    for (String channel : wakeUpByChannel.keySet()) {
      execute(c, listen(channel));
    }
    Notifications read = Notifications.of(c);
    log.debug("{} - listening on {}", instanceId, wakeUpByChannel.keySet());
    wakeUpByChannel.values().forEach(Runnable::run); // rows committed while not listening
    while (!stopped) {
      Object[] notifications = read.next(READ_TIMEOUT_MILLIS);
      if (notifications.length > 0) {
        wake(read, notifications);
      }
    }
  }

  /** Runs {@code sql} on {@code c} in auto-commit: a LISTEN takes effect once committed. */
  private static void execute(Connection c, String sql) throws SQLException {
    if (!c.getAutoCommit()) {
      c.setAutoCommit(true);
    }
    try (Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  private static void unlisten(Connection c) {
    try (Statement s = c.createStatement()) {
      s.execute(UNLISTEN);
    } catch (SQLException ignored) {
      // a broken connection listens to nothing; the pool discards it
    }
  }

  private void wake(Notifications read, Object[] notifications)
      throws ReflectiveOperationException {
    Set<String> channels = new HashSet<>();
    for (Object n : notifications) {
      channels.add(read.channel(n));
    }
    for (String channel : channels) {
      Runnable wake = wakeUpByChannel.get(channel);
      if (wake != null) {
        wake.run();
      }
    }
  }

  /** pgjdbc's notification reads on one connection, through reflection. */
  private record Notifications(Object pg, Method read, Method name) {
    static Notifications of(Connection c) throws SQLException, ReflectiveOperationException {
      ClassLoader loader = c.getClass().getClassLoader();
      Class<?> pgConnection = Class.forName("org.postgresql.PGConnection", false, loader);
      // through the public interface: the implementation class is not accessible
      Class<?> notification = Class.forName("org.postgresql.PGNotification", false, loader);
      return new Notifications(
          c.unwrap(pgConnection),
          pgConnection.getMethod("getNotifications", int.class),
          notification.getMethod("getName"));
    }

    /** Waits up to {@code timeoutMillis} (at least 1: 0 would wait for ever) for notifications. */
    Object[] next(int timeoutMillis) throws SQLException, IllegalAccessException {
      try {
        Object[] notifications = (Object[]) read.invoke(pg, Math.max(1, timeoutMillis));
        return notifications == null ? new Object[0] : notifications;
      } catch (InvocationTargetException e) {
        // the driver's own failure (server restart, network): reconnect, do not give up
        if (e.getCause() instanceof SQLException sql) {
          throw sql;
        }
        throw new SQLException("reading notifications failed", e.getCause());
      }
    }

    String channel(Object notification) throws ReflectiveOperationException {
      return (String) name.invoke(notification);
    }
  }
}
