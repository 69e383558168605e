package dev.postbox.internal.lane;

import dev.postbox.Database;
import dev.postbox.internal.PostgresNotifications;
import dev.postbox.internal.Startup;
import dev.postbox.internal.dialect.Dialect;
import dev.postbox.internal.sql.QueueTable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import javax.sql.DataSource;

/**
 * A dispatcher's lanes, one per queue table, each checked and built before any starts, and the
 * PostgreSQL {@code LISTEN} connection that wakes those whose table notifies. Built and started by
 * one thread (the dispatcher's start, under its lock); once started, {@link #wakeUp} and {@link
 * #awaitIdle} are safe from any thread.
 */
public final class Lanes {
  private final DataSource dataSource;
  private final Database database;
  private final Dialect dialect;
  private final String instanceId;
  private final List<Lane<?>> lanes = new ArrayList<>();
  private final Map<String, Runnable> channels = new HashMap<>(); // LISTEN channel: its lane
  private PostgresNotifications notifications;
  private Duration pollInterval; // a notifying lane's: the LISTEN's fallback, for its log line

  public Lanes(DataSource dataSource, Database database, Dialect dialect, String instanceId) {
    this.dataSource = dataSource;
    this.database = database;
    this.dialect = dialect;
    this.instanceId = instanceId;
  }

  /** No lanes: what a dispatcher has before its start and after its close. */
  public static Lanes none() {
    return new Lanes(null, null, null, null);
  }

  /**
   * Checks {@code table} (its columns, and its keys table if ordered by key) and adds its lane, not
   * started; a table that {@code notifies} wakes its lane on each {@code NOTIFY}.
   *
   * @return the lane
   */
  public <T> Lane<T> add(
      QueueTable<T> table, LaneSettings settings, Recipient<T> recipient, boolean notifies) {
    Startup.checkColumns(dataSource, database, table.name(), checkedColumns(table));
    if (table.keyOrder() != null) {
      Startup.checkKeysTable(dataSource, database, table.name());
    }
    Lane<T> lane = new Lane<>(dataSource, dialect, table, settings, recipient);
    lanes.add(lane);
    if (notifies) {
      channels.put(PostgresNotifications.channel(lane.table()), lane::wakeUp);
      pollInterval = settings.pollInterval();
    }
    return lane;
  }

  /** The columns of a lane's {@code table} its start checks. */
  public static String checkedColumns(QueueTable<?> table) {
    String columns = Startup.QUEUE_COLUMNS + ", " + table.columns().item();
    if (!table.columns().checked().isEmpty()) {
      columns += ", " + table.columns().checked();
    }
    return columns;
  }

  /**
   * Starts the {@code LISTEN} connection (on PostgreSQL, if a table notifies), then each lane. If
   * one fails, {@link #close} closes what started.
   */
  public void start() {
    if (!channels.isEmpty() && database == Database.POSTGRESQL) {
      notifications = new PostgresNotifications(dataSource, channels, instanceId, pollInterval);
      notifications.start();
    }
    for (Lane<?> lane : lanes) {
      lane.start();
    }
  }

  /** Cuts every lane's poll wait short. */
  public void wakeUp() {
    for (Lane<?> lane : lanes) {
      lane.wakeUp();
    }
  }

  /**
   * Waits until a claim made after this call proves each lane idle ({@link Lane#awaitIdleAfter}).
   *
   * @return false if {@code deadlineNanos} passed first, a lane is stopping or {@code closed} holds
   */
  public boolean awaitIdle(long deadlineNanos, BooleanSupplier closed) throws InterruptedException {
    long[] seen = new long[lanes.size()];
    for (int i = 0; i < seen.length; i++) {
      seen[i] = lanes.get(i).activity();
    }
    for (int i = 0; i < seen.length; i++) {
      if (closed.getAsBoolean() || !lanes.get(i).awaitIdleAfter(seen[i], deadlineNanos)) {
        return false;
      }
    }
    return !closed.getAsBoolean();
  }

  /**
   * Closes the {@code LISTEN} connection, then each lane in turn (which hands its claimed rows
   * back). Each lane is closed even if the caller is interrupted meanwhile; a lane closed after an
   * interrupt hurries (interrupts its deliveries at once), and the interrupt status is cleared.
   *
   * @param interrupted whether the caller was interrupted before
   * @return true if the caller was interrupted, before or meanwhile
   */
  public boolean close(boolean interrupted) {
    if (notifications != null) {
      interrupted |= notifications.close();
    }
    for (Lane<?> lane : lanes) {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
      lane.close();
      interrupted |= Thread.interrupted();
    }
    return interrupted;
  }

  /** {@return each lane's counts by its table, in the order the lanes were added} */
  public Map<String, LaneCounts> counts() {
    Map<String, LaneCounts> counts = new LinkedHashMap<>();
    lanes.forEach(lane -> counts.put(lane.table(), lane.counts()));
    return counts;
  }

  /** The lanes' tables, for logs. */
  public List<String> tables() {
    return lanes.stream().map(Lane::table).toList();
  }

  /**
   * {@code ", LISTEN [channels]"} while the {@code LISTEN} connection runs, else empty; for logs.
   */
  public String listening() {
    return notifications == null ? "" : ", LISTEN " + channels.keySet();
  }
}
